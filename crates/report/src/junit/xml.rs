//! The JUnit document as data, and its one serialization with `quick-xml`'s writer.
//!
//! The shape satisfies both schemas CI systems follow (`tests/fixtures/reports/junit/`): the
//! Jenkins xunit plugin's `junit-10.xsd` for the whole document, and the Ant schema
//! (`JUnit.xsd`, what GitLab and Azure DevOps read) below the root: every suite has
//! `package`, `id`, `hostname`, `timestamp` (UTC, no zone) and `time`, its properties first
//! and its `system-out` and `system-err` last; a test case has at most one outcome and no
//! output of its own. The root carries no `skipped` count: `junit-10.xsd` has no such
//! attribute (each suite has one).

use std::borrow::Cow;
use std::io::{self, Write};
use std::time::Duration;

use quick_xml::Writer;
use quick_xml::escape::partial_escape;
use quick_xml::events::{BytesDecl, BytesText, Event};

/// The whole document: `<testsuites>`.
#[derive(Debug, Clone)]
pub(super) struct TestSuites {
    /// Its `name`.
    pub name: &'static str,
    /// The run's duration.
    pub time: Seconds,
    /// One per host, then the fleet's.
    pub suites: Vec<TestSuite>,
}

/// One `<testsuite>`.
#[derive(Debug, Clone)]
pub(super) struct TestSuite {
    /// The host (or `fleet`).
    pub name: String,
    /// Where the tests ran: the host.
    pub hostname: String,
    /// What the suite's test cases' class names start with.
    pub package: String,
    /// When: `YYYY-MM-DDTHH:MM:SS` in UTC (as given when it is not RFC 3339).
    pub timestamp: String,
    /// How long the capture took.
    pub time: Seconds,
    /// `<property name value>` pairs, in this order.
    pub properties: Vec<(&'static str, String)>,
    /// Its test cases, in this order.
    pub cases: Vec<TestCase>,
    /// Lines of its `<system-out>`.
    pub output: Vec<String>,
}

/// One `<testcase>`.
#[derive(Debug, Clone)]
pub(super) struct TestCase {
    /// Its `name`.
    pub name: String,
    /// Its `classname`.
    pub classname: String,
    /// How long it took.
    pub time: Seconds,
    /// What became of it.
    pub outcome: Outcome,
}

/// A test case's result.
#[derive(Debug, Clone)]
pub(super) enum Outcome {
    /// Nothing to say.
    Passed,
    /// `<failure>`: a blocking finding.
    Failure(Problem),
    /// `<error>`: the host could not be read.
    Error(Problem),
    /// `<skipped>`: allowed, waived, or not judged.
    Skipped(Problem),
}

/// What an outcome element says.
#[derive(Debug, Clone)]
pub(super) struct Problem {
    /// Its `type`.
    pub kind: String,
    /// Its `message`.
    pub message: String,
    /// Its text.
    pub body: String,
}

/// A `time` attribute: a duration to the millisecond, written as seconds with three decimals
/// (`4.210`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Seconds(Duration);

impl Seconds {
    /// A duration of `ms` milliseconds (the documents count capture times in them).
    pub(super) fn from_ms(ms: u64) -> Seconds {
        Seconds(Duration::from_millis(ms))
    }

    /// The span from `start` to `end`; `None` when `end` is before `start`.
    pub(super) fn between(start: jiff::Timestamp, end: jiff::Timestamp) -> Option<Seconds> {
        let ms = end.as_millisecond().checked_sub(start.as_millisecond())?;
        u64::try_from(ms).ok().map(Seconds::from_ms)
    }

    pub(super) fn text(self) -> String {
        format!("{}.{:03}", self.0.as_secs(), self.0.subsec_millis())
    }
}

impl TestSuite {
    fn count(&self, which: fn(&Outcome) -> bool) -> usize {
        self.cases.iter().filter(|c| which(&c.outcome)).count()
    }

    fn failures(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failure(_)))
    }

    fn errors(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Error(_)))
    }

    fn skipped(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Skipped(_)))
    }
}

/// Writes `doc` as indented XML with a declaration.
pub(super) fn write(doc: &TestSuites, out: &mut dyn Write) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let total = |f: fn(&TestSuite) -> usize| doc.suites.iter().map(f).sum::<usize>().to_string();
    w.create_element("testsuites")
        .with_attributes([
            ("name", doc.name),
            ("tests", &total(|s| s.cases.len())),
            ("failures", &total(TestSuite::failures)),
            ("errors", &total(TestSuite::errors)),
            ("time", &doc.time.text()),
        ])
        .write_inner_content(|w| {
            for (id, suite) in doc.suites.iter().enumerate() {
                write_suite(w, id, suite)?;
            }
            Ok(())
        })?;
    w.get_mut().write_all(b"\n")
}

fn write_suite<W: Write>(w: &mut Writer<W>, id: usize, suite: &TestSuite) -> io::Result<()> {
    w.create_element("testsuite")
        .with_attributes([
            ("name", safe(&suite.name)),
            ("tests", suite.cases.len().to_string().into()),
            ("failures", suite.failures().to_string().into()),
            ("errors", suite.errors().to_string().into()),
            ("skipped", suite.skipped().to_string().into()),
            ("time", suite.time.text().into()),
            ("timestamp", safe(&suite.timestamp)),
            ("hostname", safe(&suite.hostname)),
            ("package", safe(&suite.package)),
            ("id", id.to_string().into()),
        ])
        .write_inner_content(|w| {
            w.create_element("properties").write_inner_content(|w| {
                for (name, value) in &suite.properties {
                    w.create_element("property")
                        .with_attributes([("name", Cow::Borrowed(*name)), ("value", safe(value))])
                        .write_empty()?;
                }
                Ok(())
            })?;
            for case in &suite.cases {
                write_case(w, case)?;
            }
            let mut output = suite.output.join("\n");
            if !output.is_empty() {
                output.push('\n');
            }
            w.create_element("system-out")
                .write_text_content(text(&output))?;
            w.create_element("system-err").write_empty()?;
            Ok(())
        })?;
    Ok(())
}

fn write_case<W: Write>(w: &mut Writer<W>, case: &TestCase) -> io::Result<()> {
    let element = w.create_element("testcase").with_attributes([
        ("name", safe(&case.name)),
        ("classname", safe(&case.classname)),
        ("time", case.time.text().into()),
    ]);
    let (tag, problem) = match &case.outcome {
        Outcome::Passed => {
            element.write_empty()?;
            return Ok(());
        }
        Outcome::Failure(p) => ("failure", p),
        Outcome::Error(p) => ("error", p),
        Outcome::Skipped(p) => ("skipped", p),
    };
    element.write_inner_content(|w| {
        w.create_element(tag)
            .with_attributes([
                ("type", safe(&problem.kind)),
                ("message", safe(&problem.message)),
            ])
            .write_text_content(text(&problem.body))?;
        Ok(())
    })?;
    Ok(())
}

/// Element text: only `<`, `>` and `&` escaped (quotes stay readable in a CI's log view).
fn text(raw: &str) -> BytesText<'static> {
    BytesText::from_escaped(partial_escape(safe(raw).into_owned()).into_owned())
}

/// `text` with every control character but tab and line feed shown as `\u{…}`
/// ([`crate::visible`]: most XML 1.0 cannot carry at all, and the others would act in the
/// CI log that shows them), and U+FFFE and U+FFFF, which XML cannot carry either, written
/// the same way. `quick-xml` escapes the rest.
pub(super) fn safe(text: &str) -> Cow<'_, str> {
    let text = crate::visible(text);
    let allowed = |c: char| !matches!(c, '\u{fffe}' | '\u{ffff}');
    if text.chars().all(allowed) {
        return text;
    }
    let mut clean = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if allowed(c) {
            clean.push(c);
        } else {
            clean.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    Cow::Owned(clean)
}
