"""Every exception the library raises on purpose has one base, and keeps the standard base it had."""

import pytest

from lightrag_resolve import LightRAGResolveError
from lightrag_resolve.cli.demo import DemoInputError
from lightrag_resolve.cli.resolve import InputError
from lightrag_resolve.cli.serve import FlagError
from lightrag_resolve.local import LocalModelError, ModelNotInstalledError
from lightrag_resolve.server import ResolverEnvError
from lightrag_resolve.server._refusal import UnresolvedReplyRefused
from lightrag_resolve.server._seam import SeamError


@pytest.mark.parametrize(
    ("error", "standard"),
    [
        (InputError, ValueError),
        (DemoInputError, ValueError),
        (FlagError, ValueError),
        (ResolverEnvError, ValueError),
        (SeamError, RuntimeError),
        (LocalModelError, RuntimeError),
        (ModelNotInstalledError, RuntimeError),
        (UnresolvedReplyRefused, ValueError),
    ],
)
def test_each_error_is_a_library_error_and_keeps_its_standard_base(error, standard):
    assert issubclass(error, LightRAGResolveError)
    assert issubclass(error, standard)


def test_the_evaluation_errors_share_the_base():
    evaluation = pytest.importorskip("lightrag_resolve.eval")
    from lightrag_resolve.eval._items import ItemError

    for error in (
        evaluation.EvalError,
        evaluation.DatasetError,
        evaluation.ResultsMismatchError,
        evaluation.ModelUnavailableError,
        ItemError,
    ):
        assert issubclass(error, evaluation.EvalError) and issubclass(error, LightRAGResolveError)
    assert issubclass(evaluation.DatasetError, ValueError) and issubclass(ItemError, ValueError)


def test_every_exception_class_of_the_package_is_under_the_base():
    import pathlib
    import re

    import lightrag_resolve

    root = pathlib.Path(lightrag_resolve.__file__).parent
    for module in root.rglob("*.py"):
        for name, bases in re.findall(r"^class (\w+)\(([^)]*)\):", module.read_text("utf-8"), flags=re.MULTILINE):
            if name.endswith(("Error", "Exception")) and name != "LightRAGResolveError":
                assert re.search(r"Error\b", bases), (module, name)
                assert bases.split(",")[0].strip() not in {"ValueError", "RuntimeError", "Exception"}, (module, name)
