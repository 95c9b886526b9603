//! For the tests of all three Markdown renderers: hostile capture values, and a CommonMark
//! parse of a report that fails when a value made a link, an image, HTML or a mention, or
//! was split by a table break.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// What a BMC could put in a string: a link, an image, raw HTML, a mention and a table break.
pub(crate) const HOSTILE: &str =
    "[x](https://evil) ![i](https://evil/p.png) <img src=x> @team | col";
/// A value with runs of backticks that would end a naive code span.
pub(crate) const BACKTICKS: &str = "a `b` c ``d`` ```e``` <b>f</b>";

/// Panics unless `md` parses (CommonMark with GFM tables) without a link, image or HTML, has
/// no `@team` mention in its text, and shows each of `values` whole in one paragraph, heading,
/// list item or table cell.
pub(crate) fn assert_inert(md: &str, values: &[&str]) {
    let mut blocks = Vec::new();
    let mut block = String::new();
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                panic!("a value made a link or an image:\n{md}")
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                panic!("a value made HTML {html:?}:\n{md}")
            }
            Event::Text(text) => {
                assert!(
                    !text.contains("@team"),
                    "a mention of @team in {text:?}:\n{md}"
                );
                block.push_str(&text);
            }
            Event::Code(code) => block.push_str(&code),
            Event::SoftBreak | Event::HardBreak => block.push(' '),
            Event::Start(
                Tag::Paragraph
                | Tag::Heading { .. }
                | Tag::Item
                | Tag::TableCell
                | Tag::CodeBlock(_),
            )
            | Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::CodeBlock,
            ) => blocks.push(std::mem::take(&mut block).replace('\u{200b}', "")),
            _ => {}
        }
    }
    for value in values {
        assert!(
            blocks.iter().any(|b| b.contains(value)),
            "{value:?} is not shown whole in one block of:\n{md}\nblocks: {blocks:#?}"
        );
    }
}
