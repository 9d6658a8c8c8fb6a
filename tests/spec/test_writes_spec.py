"""A spec's `writes:` list: the model the judges read (matcher, default method POST, default name, `expect`) and
the run's `{sites.NAME}` filled into write rules like intercept rules. Malformed writes are in tests/spec/malformed."""

from __future__ import annotations

from pathlib import Path

from clawrec.cli import main
from clawrec.taskfile import expand_sites
from taskspec.load import load_spec
from taskspec.match import matches
from taskspec.payload import Body

SPEC = """\
version: 1
id: basket-writes
instruction: Order 2 mugs to 1 Rue de Rivoli, 75001 Paris.
start_url: "{sites.basket}"
intercept:
  - url: "{sites.basket}checkout/place"
    equals: {action: place_order}
writes:
  - url: "{sites.basket}basket/quantity"
    expect: {quantity: 2}
  - url_regex: '{sites.basket}checkout/address/\\d+'
    method: [POST, PUT]
    fields: [postcode]
    name: shipping address
    expect: {postcode: "75001", address.city: Paris}
"""


def test_writes_load_with_defaults_and_fill_like_intercept_rules(tmp_path: Path, capsys) -> None:
    path = tmp_path / "basket-writes.yaml"
    path.write_text(SPEC, encoding="utf-8")
    assert main(["validate", str(path), "--list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("\t1 intercept rule, 2 writes")
    spec = load_spec(path)
    quantity, address = spec.writes
    assert (quantity.index, quantity.name, quantity.rule.methods, quantity.expect) == \
        (0, "POST /basket/quantity", ("POST",), {"quantity": 2})
    assert (address.name, address.rule.methods, address.rule.fields) == ("shipping address", ("POST", "PUT"),
                                                                          ("postcode",))
    assert address.label == "writes[1] (shipping address)"
    run = expand_sites(spec, {"basket": "http://127.0.0.1:4321/"})
    body = Body("form", {"postcode": "75001"})
    assert matches(run.writes[0].rule, "POST", "http://127.0.0.1:4321/basket/quantity", body)
    assert not matches(run.writes[0].rule, "GET", "http://127.0.0.1:4321/basket/quantity", body)
    assert matches(run.writes[1].rule, "PUT", "http://127.0.0.1:4321/checkout/address/7", body)
    assert not matches(run.writes[1].rule, "PUT", "http://127.0.0.1:4321/checkout/address/7", Body("form", {}))


def test_a_spec_without_writes_has_none(tmp_path: Path) -> None:
    path = tmp_path / "basket-writes.yaml"
    path.write_text(SPEC.split("writes:")[0], encoding="utf-8")
    assert load_spec(path).writes == ()
