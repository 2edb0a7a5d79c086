"""The public namespace is exactly what __all__ says, sorted, and nothing private leaks."""

import lightrag_resolve


def test_all_is_sorted_and_complete():
    exported = lightrag_resolve.__all__
    assert exported == sorted(exported)
    public = {name for name in vars(lightrag_resolve) if not name.startswith("_")}
    modules = {name for name, value in vars(lightrag_resolve).items() if type(value).__name__ == "module"}
    assert public - modules - {"annotations"} == set(exported)


def test_public_names_point_at_public_objects():
    for name in lightrag_resolve.__all__:
        value = getattr(lightrag_resolve, name)
        assert value is not None
        module = getattr(value, "__module__", "lightrag_resolve")
        assert module.startswith("lightrag_resolve") or name in {"Decision", "FallbackReason", "Path", "RejectedReason"}


def test_the_server_namespace_is_exactly_its_all():
    from lightrag_resolve import server

    assert server.__all__ == sorted(server.__all__)
    public = {name for name in vars(server) if not name.startswith("_")}
    assert public - {"annotations", "os", "Any"} == set(server.__all__)
