//! The vSphere Web Services (SOAP) answers driftgate reads, parsed with `roxmltree`: the
//! service content, a created view, the objects of a property retrieval, and faults. Elements
//! are matched by local name; an answer without what it must carry is an error naming it. What
//! the vSphere API gives once (a property of an object, an element of a logical unit or SCSI
//! LUN) given twice is recorded as such, and neither value is read.

use roxmltree::{Document, Node};

use super::model::{Host, LogicalUnit, MoRef, Path, Product, ScsiLun};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// A SOAP fault: the vSphere fault type (`InvalidLogin`, `NotAuthenticated`,
/// `ManagedObjectNotFound`…) and its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct Fault {
    /// The fault type.
    pub kind: String,
    /// `faultstring`.
    pub message: String,
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The vCenter answered with a fault.
    #[error("SOAP fault {0}")]
    Fault(#[from] Fault),
    /// The answer is no XML, or lacks what it must carry.
    #[error("malformed answer: {0}")]
    Malformed(String),
}

fn malformed(what: impl Into<String>) -> AnswerError {
    AnswerError::Malformed(what.into())
}

/// What `RetrieveServiceContent` answers that driftgate uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceContent {
    /// `rootFolder`.
    pub root_folder: MoRef,
    /// `propertyCollector`.
    pub property_collector: MoRef,
    /// `viewManager`.
    pub view_manager: MoRef,
    /// `sessionManager`.
    pub session_manager: MoRef,
}

/// One page of a property retrieval.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retrieved {
    /// The token for `ContinueRetrievePropertiesEx`, when more pages follow.
    pub token: Option<String>,
    /// The hosts of this page.
    pub hosts: Vec<Host>,
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn children<'a, 'i>(node: Node<'a, 'i>, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

fn text(node: Node<'_, '_>, name: &str) -> Option<String> {
    child(node, name).map(content)
}

fn content(node: Node<'_, '_>) -> String {
    node.text().unwrap_or("").trim().to_owned()
}

/// The child `name` of `node`, which the vSphere API gives at most once; a second one is
/// recorded in `repeated` as `name` (after `within`): an answer that says two things of one
/// property is not for the reader to pick from.
fn once<'a, 'i>(
    node: Node<'a, 'i>,
    name: &str,
    within: &str,
    repeated: &mut Vec<String>,
) -> Option<Node<'a, 'i>> {
    let mut found = node
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == name);
    let first = found.next();
    if found.next().is_some() {
        repeated.push(format!("{within}{name}"));
    }
    first
}

/// The text of [`once`].
fn once_text(
    node: Node<'_, '_>,
    name: &str,
    within: &str,
    repeated: &mut Vec<String>,
) -> Option<String> {
    once(node, name, within, repeated).map(content)
}

/// A boolean property given as `text`; one that is there but no `xsd:boolean` is recorded in
/// `wrong` (a mistyped answer is never read as "not said").
fn flag(name: &str, text: Option<String>, wrong: &mut Vec<String>) -> Option<bool> {
    match text?.as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        other => {
            wrong.push(format!("{name} is {other:?}, not a boolean"));
            None
        }
    }
}

fn xsi_type(node: Node<'_, '_>) -> String {
    let kind = node.attribute((XSI, "type")).unwrap_or("");
    kind.rsplit(':').next().unwrap_or(kind).to_owned()
}

fn moref(node: Node<'_, '_>) -> MoRef {
    MoRef {
        kind: node.attribute("type").unwrap_or("").to_owned(),
        value: node.text().unwrap_or("").trim().to_owned(),
    }
}

/// The element inside `Body` of the answer to `method`, after checking it is no fault and is
/// that method's `…Response`.
fn body<'a, 'i>(doc: &'a Document<'i>, method: &str) -> Result<Node<'a, 'i>, AnswerError> {
    let envelope = doc.root_element();
    if envelope.tag_name().name() != "Envelope" {
        return Err(malformed("no SOAP Envelope"));
    }
    let body = child(envelope, "Body").ok_or_else(|| malformed("no SOAP Body"))?;
    let first = body
        .children()
        .find(Node::is_element)
        .ok_or_else(|| malformed("an empty SOAP Body"))?;
    if first.tag_name().name() == "Fault" {
        let message = text(first, "faultstring").unwrap_or_default();
        let detail = child(first, "detail").and_then(|d| d.children().find(Node::is_element));
        let kind = detail
            .map(|d| {
                let typed = xsi_type(d);
                if typed.is_empty() {
                    d.tag_name().name().trim_end_matches("Fault").to_owned()
                } else {
                    typed
                }
            })
            .unwrap_or_else(|| text(first, "faultcode").unwrap_or_default());
        return Err(Fault { kind, message }.into());
    }
    let expected = format!("{method}Response");
    if first.tag_name().name() != expected {
        return Err(malformed(format!(
            "{} where {expected} was expected",
            first.tag_name().name()
        )));
    }
    Ok(first)
}

fn parse(text: &str) -> Result<Document<'_>, AnswerError> {
    Document::parse(text).map_err(|e| malformed(format!("not XML ({e})")))
}

/// `RetrieveServiceContentResponse`.
pub fn service_content(answer: &str) -> Result<ServiceContent, AnswerError> {
    let doc = parse(answer)?;
    let returnval = child(body(&doc, "RetrieveServiceContent")?, "returnval")
        .ok_or_else(|| malformed("no returnval"))?;
    let get = |name: &str| {
        child(returnval, name)
            .map(moref)
            .filter(|m| !m.value.is_empty())
            .ok_or_else(|| malformed(format!("the service content has no {name}")))
    };
    Ok(ServiceContent {
        root_folder: get("rootFolder")?,
        property_collector: get("propertyCollector")?,
        view_manager: get("viewManager")?,
        session_manager: get("sessionManager")?,
    })
}

/// The answer to `method` whose `returnval` is a managed object reference
/// (`CreateContainerView`).
pub fn returned_moref(answer: &str, method: &str) -> Result<MoRef, AnswerError> {
    let doc = parse(answer)?;
    child(body(&doc, method)?, "returnval")
        .map(moref)
        .filter(|m| !m.value.is_empty())
        .ok_or_else(|| malformed("no managed object in returnval"))
}

/// The answer to `method` with nothing to read but a possible fault (`Login`, `Logout`,
/// `DestroyView`).
pub fn acknowledged(answer: &str, method: &str) -> Result<(), AnswerError> {
    let doc = parse(answer)?;
    body(&doc, method).map(drop)
}

/// The answer to `method` (`RetrievePropertiesEx` or `ContinueRetrievePropertiesEx`): each
/// `HostSystem` object with the properties driftgate asked for. A first page without
/// `returnval` is a vCenter with no hosts; a continued page must have one (its token promised
/// more). An object of another type, or a property value of another type than asked for, is
/// an error: never fewer devices.
pub fn retrieved(answer: &str, method: &str) -> Result<Retrieved, AnswerError> {
    let doc = parse(answer)?;
    let body = body(&doc, method)?;
    let Some(returnval) = child(body, "returnval") else {
        return if method == "RetrievePropertiesEx" {
            Ok(Retrieved::default())
        } else {
            Err(malformed(format!(
                "{method} answered no objects after its token promised more"
            )))
        };
    };
    let token = text(returnval, "token").filter(|t| !t.is_empty());
    let mut hosts = Vec::new();
    for object in children(returnval, "objects") {
        let obj = child(object, "obj").map(moref);
        if obj.as_ref().is_none_or(|o| o.kind != "HostSystem") {
            return Err(malformed(format!(
                "an object that is no HostSystem ({})",
                obj.map_or_else(
                    || "none named".to_owned(),
                    |o| format!("{}:{}", o.kind, o.value)
                )
            )));
        }
        let mut host = Host::default();
        let mut given: Vec<String> = Vec::new();
        for set in children(object, "propSet") {
            let name = text(set, "name").unwrap_or_default();
            if given.contains(&name) {
                if !host.repeated.contains(&name) {
                    host.repeated.push(name);
                }
                continue;
            }
            given.push(name.clone());
            let Some(val) = child(set, "val") else {
                continue;
            };
            match name.as_str() {
                "name" => host.name = Some(val.text().unwrap_or("").trim().to_owned()),
                "config.product" => {
                    typed(val, "AboutInfo")?;
                    host.product = Some(product(val));
                }
                "config.storageDevice.multipathInfo" => {
                    typed(val, "HostMultipathInfo")?;
                    let wrong = &mut host.malformed;
                    host.luns = Some(
                        children(val, "lun")
                            .map(|l| logical_unit(l, wrong))
                            .collect(),
                    );
                }
                "config.storageDevice.scsiLun" => {
                    typed(val, "ArrayOfScsiLun")?;
                    let wrong = &mut host.malformed;
                    host.scsi_luns = Some(
                        children(val, "ScsiLun")
                            .map(|l| scsi_lun(l, wrong))
                            .collect(),
                    );
                }
                _ => {}
            }
        }
        for missing in children(object, "missingSet") {
            let path = text(missing, "path").unwrap_or_default();
            let fault = child(missing, "fault")
                .and_then(|f| child(f, "fault"))
                .map(xsi_type)
                .unwrap_or_else(|| "a fault".to_owned());
            host.missing.push((path, fault));
        }
        forget_repeated(&mut host);
        hosts.push(host);
    }
    Ok(Retrieved { token, hosts })
}

/// `FetchResponse` of a host's `config` (`HostConfigInfo`), as pyVmomi's lazy properties
/// read it: the same product and storage, one object.
pub fn host_config(answer: &str) -> Result<Host, AnswerError> {
    let doc = parse(answer)?;
    let config =
        child(body(&doc, "Fetch")?, "returnval").ok_or_else(|| malformed("no returnval"))?;
    let mut repeated = Vec::new();
    let storage = once(config, "storageDevice", "config.", &mut repeated);
    let mut malformed = Vec::new();
    let luns = storage
        .and_then(|s| once(s, "multipathInfo", "config.storageDevice.", &mut repeated))
        .map(|m| {
            children(m, "lun")
                .map(|l| logical_unit(l, &mut malformed))
                .collect()
        });
    let scsi_luns = storage.map(|s| {
        children(s, "scsiLun")
            .map(|l| scsi_lun(l, &mut malformed))
            .collect()
    });
    let product = once(config, "product", "config.", &mut repeated).map(product);
    let mut host = Host {
        name: None,
        product,
        luns,
        scsi_luns,
        missing: Vec::new(),
        malformed,
        repeated,
    };
    forget_repeated(&mut host);
    Ok(host)
}

/// Drops the values of the properties `host` gives more than once: none of them is read.
/// `name` stays, so that the host is still found and its error told.
fn forget_repeated(host: &mut Host) {
    for property in &host.repeated {
        match property.as_str() {
            "config.product" => host.product = None,
            "config.storageDevice.multipathInfo" => host.luns = None,
            "config.storageDevice.scsiLun" => host.scsi_luns = None,
            "config.storageDevice" => {
                host.luns = None;
                host.scsi_luns = None;
            }
            _ => {}
        }
    }
}

/// A property value must be of the type asked for.
fn typed(val: Node<'_, '_>, kind: &str) -> Result<(), AnswerError> {
    let given = xsi_type(val);
    if given == kind {
        Ok(())
    } else {
        Err(malformed(format!(
            "a value of type {given:?} where {kind} was expected"
        )))
    }
}

fn product(val: Node<'_, '_>) -> Product {
    let mut repeated = Vec::new();
    Product {
        version: once_text(val, "version", "", &mut repeated).unwrap_or_default(),
        build: once_text(val, "build", "", &mut repeated).unwrap_or_default(),
        api_version: once_text(val, "apiVersion", "", &mut repeated),
        repeated,
    }
}

fn logical_unit(lun: Node<'_, '_>, wrong: &mut Vec<String>) -> LogicalUnit {
    let mut repeated = Vec::new();
    let policy = once(lun, "policy", "", &mut repeated);
    let satp = once(lun, "storageArrayTypePolicy", "", &mut repeated);
    let paths = children(lun, "path")
        .map(|path| {
            let name = text(path, "name").unwrap_or_default();
            let within = format!("path {name}: ");
            once(path, "name", &within, &mut repeated);
            Path {
                // `state` replaced the deprecated `pathState`.
                state: once_text(path, "state", &within, &mut repeated)
                    .or_else(|| once_text(path, "pathState", &within, &mut repeated))
                    .unwrap_or_default(),
                working: flag(
                    "isWorkingPath",
                    once_text(path, "isWorkingPath", &within, &mut repeated),
                    wrong,
                ),
                name,
            }
        })
        .collect();
    LogicalUnit {
        id: once_text(lun, "id", "", &mut repeated).unwrap_or_default(),
        scsi_lun: once_text(lun, "lun", "", &mut repeated).unwrap_or_default(),
        policy: policy
            .and_then(|p| once_text(p, "policy", "policy.", &mut repeated))
            .unwrap_or_default(),
        policy_type: policy.map(xsi_type).unwrap_or_default(),
        satp: satp.and_then(|s| once_text(s, "policy", "storageArrayTypePolicy.", &mut repeated)),
        paths,
        repeated,
    }
}

fn scsi_lun(lun: Node<'_, '_>, wrong: &mut Vec<String>) -> ScsiLun {
    let mut repeated = Vec::new();
    let mut field = |name: &str| once_text(lun, name, "", &mut repeated);
    let key = field("key").unwrap_or_default();
    let canonical_name = field("canonicalName").unwrap_or_default();
    let display_name = field("displayName");
    let vendor = field("vendor");
    let model = field("model");
    let reserved = field("perenniallyReserved");
    let local = field("localDisk");
    ScsiLun {
        key,
        canonical_name,
        display_name,
        vendor,
        model,
        reserved_given: reserved.is_some(),
        perennially_reserved: flag("perenniallyReserved", reserved, wrong),
        local: flag("localDisk", local, wrong),
        repeated,
    }
}
