//! The vSphere Web Services requests driftgate sends, written with `quick-xml`: each is one
//! method on one managed object, its arguments escaped by the writer.

use quick_xml::Writer;
use quick_xml::events::{BytesEnd, BytesStart, BytesText, Event};

use super::model::MoRef;

/// An argument of a method.
pub(super) enum Arg<'a> {
    /// `<name>text</name>`.
    Text(&'a str, &'a str),
    /// `<name type="Kind">value</name>`.
    Ref(&'a str, &'a MoRef),
    /// An element with children.
    Nested(&'a str, Vec<Arg<'a>>),
    /// `<name xsi:type="Kind">…</name>`: an element of a derived type.
    Typed(&'a str, &'a str, Vec<Arg<'a>>),
}

fn write(writer: &mut Writer<Vec<u8>>, arg: &Arg<'_>) -> std::io::Result<()> {
    match arg {
        Arg::Text(name, text) => {
            writer.write_event(Event::Start(BytesStart::new(*name)))?;
            writer.write_event(Event::Text(BytesText::new(text)))?;
            writer.write_event(Event::End(BytesEnd::new(*name)))
        }
        Arg::Ref(name, moref) => {
            let mut start = BytesStart::new(*name);
            start.push_attribute(("type", moref.kind.as_str()));
            writer.write_event(Event::Start(start))?;
            writer.write_event(Event::Text(BytesText::new(&moref.value)))?;
            writer.write_event(Event::End(BytesEnd::new(*name)))
        }
        Arg::Nested(name, args) | Arg::Typed(name, _, args) => {
            let mut start = BytesStart::new(*name);
            if let Arg::Typed(_, kind, _) = arg {
                start.push_attribute(("xsi:type", *kind));
            }
            writer.write_event(Event::Start(start))?;
            for arg in args {
                write(writer, arg)?;
            }
            writer.write_event(Event::End(BytesEnd::new(*name)))
        }
    }
}

/// The envelope calling `method` on `this` with `args`.
pub(super) fn envelope(method: &str, this: &MoRef, args: &[Arg<'_>]) -> String {
    let mut writer = Writer::new(Vec::new());
    let written: std::io::Result<()> = (|| {
        let mut envelope = BytesStart::new("soapenv:Envelope");
        envelope.push_attribute(("xmlns:soapenv", "http://schemas.xmlsoap.org/soap/envelope/"));
        envelope.push_attribute(("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"));
        writer.write_event(Event::Start(envelope))?;
        writer.write_event(Event::Start(BytesStart::new("soapenv:Body")))?;
        let mut call = BytesStart::new(method);
        call.push_attribute(("xmlns", "urn:vim25"));
        writer.write_event(Event::Start(call))?;
        write(&mut writer, &Arg::Ref("_this", this))?;
        for arg in args {
            write(&mut writer, arg)?;
        }
        writer.write_event(Event::End(BytesEnd::new(method)))?;
        writer.write_event(Event::End(BytesEnd::new("soapenv:Body")))?;
        writer.write_event(Event::End(BytesEnd::new("soapenv:Envelope")))
    })();
    written.expect("writing to memory does not fail");
    String::from_utf8(writer.into_inner()).expect("the writer writes UTF-8")
}

/// The service instance every session starts from.
pub(super) fn service_instance() -> MoRef {
    MoRef {
        kind: "ServiceInstance".to_owned(),
        value: "ServiceInstance".to_owned(),
    }
}

/// `RetrievePropertiesEx` of `properties` of every `HostSystem` a container view lists.
pub(super) fn retrieve_hosts(collector: &MoRef, view: &MoRef, properties: &[&str]) -> String {
    let mut prop_set = vec![Arg::Text("type", "HostSystem")];
    prop_set.extend(properties.iter().map(|p| Arg::Text("pathSet", p)));
    envelope(
        "RetrievePropertiesEx",
        collector,
        &[
            Arg::Nested(
                "specSet",
                vec![
                    Arg::Nested("propSet", prop_set),
                    Arg::Nested(
                        "objectSet",
                        vec![
                            Arg::Ref("obj", view),
                            Arg::Text("skip", "true"),
                            Arg::Typed(
                                "selectSet",
                                "TraversalSpec",
                                vec![
                                    Arg::Text("name", "view"),
                                    Arg::Text("type", "ContainerView"),
                                    Arg::Text("path", "view"),
                                    Arg::Text("skip", "false"),
                                ],
                            ),
                        ],
                    ),
                ],
            ),
            Arg::Nested("options", vec![Arg::Text("maxObjects", "100")]),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_escaped_by_the_writer() {
        let manager = MoRef {
            kind: "SessionManager".into(),
            value: "SessionManager".into(),
        };
        let login = envelope(
            "Login",
            &manager,
            &[
                Arg::Text("userName", "ops"),
                Arg::Text("password", "a<b&c\"d"),
            ],
        );
        assert!(login.contains("<Login xmlns=\"urn:vim25\"><_this type=\"SessionManager\">SessionManager</_this><userName>ops</userName><password>a&lt;b&amp;c&quot;d</password></Login>"), "{login}");
        let parsed = roxmltree::Document::parse(&login).unwrap();
        let password = parsed
            .descendants()
            .find(|n| n.has_tag_name(("urn:vim25", "password")))
            .unwrap();
        assert_eq!(password.text(), Some("a<b&c\"d"));
    }
}
