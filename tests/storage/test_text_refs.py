"""Text held in the store once: filled from a stored text, a page says where it comes from instead of copying it."""

from pipeline.runtime import jsonio
from pipeline.storage.text_refs import Filled, StoredText, fill


def test_fill_replaces_each_hole_by_its_fill():
    assert fill("a \x001\x00 b \x000\x00 c", ["zero", "one"]) == "a one b zero c"
    assert fill("a \x001\x00 b \x000\x00 c", ["zero", "one"], 2, 5) == "one"
    assert type(fill("plain", [])) is str  # from a text not held in the store: a plain copy


def test_text_filled_from_a_stored_text_is_written_as_its_recipe():
    template = StoredText("<p>\x000\x00</p>\n<section>\x001\x00</section>", (7, "html"))
    page = fill(template, ["<a>", "<b>"], 0, 11)
    assert isinstance(page, Filled) and page == "<p><a></p>\n"
    assert jsonio.dumps({"html": page}) == '{"html":{"$filled":[7,"html",0,11,["<a>","<b>"]]}}'
    assert jsonio.dumps({"input": template}) == '{"input":{"$stored":[7,"html"]}}'
    assert jsonio.dumps({"t": str(page)}) == '{"t":"<p><a></p>\\n"}'  # str() lets the text go as itself


def test_other_subclasses_are_written_as_their_base_type():
    class Name(str):
        pass

    class Count(int):
        pass

    assert jsonio.dumps([Name("x"), Count(3), True, {"k": Name("v")}]) == '["x",3,true,{"k":"v"}]'
