//! Why a write is refused, in the Redfish error form clients parse: one
//! `@Message.ExtendedInfo` entry per problem, each naming the request's property it is about,
//! so a client (and a test) sees every wrong attribute at once, not the first one.

use serde_json::{Value, json};

/// One problem with a request: one `@Message.ExtendedInfo` entry, in the words of DMTF's
/// Base 1.12 message registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    /// The registry message (`Base.1.12.PropertyUnknown`).
    pub(super) id: &'static str,
    /// The message with its arguments filled in.
    pub(super) message: String,
    /// The arguments, in the registry's order.
    pub(super) args: Vec<String>,
    /// Pointers into the request body (`#/Attributes/Broadcom_DCBX`); empty when the problem is
    /// the request as a whole.
    pub(super) related: Vec<String>,
}

impl Problem {
    /// Base's `id` whose `template` says `%1`, `%2`, … for `args`.
    fn base(id: &'static str, template: &str, args: Vec<String>, related: Option<String>) -> Self {
        let message = args
            .iter()
            .enumerate()
            .rev()
            // From the last so that `%1` does not eat the start of `%10`.
            .fold(template.to_owned(), |message, (at, arg)| {
                message.replace(&format!("%{}", at + 1), arg)
            });
        Problem {
            id,
            message,
            args,
            related: related.into_iter().collect(),
        }
    }

    /// The body is no JSON (or no JSON object).
    pub(super) fn malformed_json() -> Self {
        let template = "The request body submitted was malformed JSON and could not be parsed by the receiving service.";
        Problem::base("Base.1.12.MalformedJSON", template, Vec::new(), None)
    }

    /// The method is not allowed on the URI.
    pub(super) fn not_allowed(method: &str, uri: &str) -> Self {
        let template = "The operation %1 is not allowed on %2.";
        let args = vec![method.to_owned(), uri.to_owned()];
        Problem::base("Base.1.12.OperationNotAllowed", template, args, None)
    }

    /// The required property at `pointer` is missing.
    pub(super) fn property_missing(name: &str, pointer: &str) -> Self {
        let template =
            "The property %1 is a required property and must be included in the request.";
        let args = vec![name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyMissing",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The resource has no such property.
    pub(super) fn unknown(name: &str, pointer: &str) -> Self {
        let template = "The property %1 is not in the list of valid properties for the resource.";
        let args = vec![name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyUnknown",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The property is read-only (or immutable).
    pub(super) fn not_writable(name: &str, pointer: &str) -> Self {
        let template = "The property %1 is a read only property and cannot be assigned a value.";
        let args = vec![name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyNotWritable",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The value is none of the property's allowed ones.
    pub(super) fn not_in_list(value: &Value, name: &str, pointer: &str) -> Self {
        let template =
            "The value '%1' for the property %2 is not in the list of acceptable values.";
        let args = vec![shown(value), name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyValueNotInList",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The value is of another JSON type than the property's.
    pub(super) fn wrong_type(value: &Value, name: &str, pointer: &str) -> Self {
        let template = "The value '%1' for the property %2 is of a different type than the property can accept.";
        let args = vec![shown(value), name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyValueTypeError",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The number is outside the property's bounds.
    pub(super) fn out_of_range(value: &Value, name: &str, pointer: &str) -> Self {
        let template = "The value '%1' for the property %2 is not in the supported range of acceptable values.";
        let args = vec![shown(value), name.to_owned()];
        Problem::base(
            "Base.1.12.PropertyValueOutOfRange",
            template,
            args,
            Some(pointer.into()),
        )
    }

    /// The action needs a parameter the request lacks.
    pub(super) fn parameter_missing(action: &str, parameter: &str) -> Self {
        let template = "The action %1 requires the parameter %2 to be present in the request body.";
        let args = vec![action.to_owned(), parameter.to_owned()];
        Problem::base(
            "Base.1.12.ActionParameterMissing",
            template,
            args,
            Some(format!("#/{parameter}")),
        )
    }

    /// The action parameter's value is none of the allowed ones.
    pub(super) fn parameter_not_in_list(value: &Value, parameter: &str, action: &str) -> Self {
        let template = "The value '%1' for the parameter %2 in the action %3 is not in the list of acceptable values.";
        let args = vec![shown(value), parameter.to_owned(), action.to_owned()];
        let related = Some(format!("#/{parameter}"));
        Problem::base(
            "Base.1.12.ActionParameterValueNotInList",
            template,
            args,
            related,
        )
    }

    /// The action parameter's value is of another JSON type than the parameter's.
    pub(super) fn parameter_wrong_type(value: &Value, parameter: &str, action: &str) -> Self {
        let template = "The value '%1' for the parameter %2 in the action %3 is of a different type than the parameter can accept.";
        let args = vec![shown(value), parameter.to_owned(), action.to_owned()];
        let related = Some(format!("#/{parameter}"));
        Problem::base(
            "Base.1.12.ActionParameterValueTypeError",
            template,
            args,
            related,
        )
    }
}

/// A value as a message argument: a string as it is, anything else as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The `{"error": …}` body for `problems` (at least one): `code` is the one problem's message,
/// or `GeneralError` when there are several.
pub(super) fn error_body(problems: &[Problem]) -> Value {
    let (code, message) = match problems {
        [one] => (one.id, one.message.as_str()),
        _ => (
            "Base.1.12.GeneralError",
            "A general error has occurred. See ExtendedInfo for more information.",
        ),
    };
    let info: Vec<Value> = problems
        .iter()
        .map(|p| {
            json!({"MessageId": p.id, "Message": p.message, "MessageArgs": p.args,
                "RelatedProperties": p.related})
        })
        .collect();
    json!({"error": {"code": code, "message": message, "@Message.ExtendedInfo": info}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_fill_the_template_and_several_problems_are_a_general_error() {
        let one = Problem::not_in_list(
            &json!("IEEE"),
            "Broadcom_DCBX",
            "#/Attributes/Broadcom_DCBX",
        );
        assert_eq!(
            one.message,
            "The value 'IEEE' for the property Broadcom_DCBX is not in the list of acceptable values."
        );
        let body = error_body(std::slice::from_ref(&one));
        assert_eq!(body["error"]["code"], "Base.1.12.PropertyValueNotInList");
        assert_eq!(
            body["error"]["@Message.ExtendedInfo"][0]["RelatedProperties"],
            json!(["#/Attributes/Broadcom_DCBX"])
        );
        let two = error_body(&[one, Problem::unknown("X", "#/Attributes/X")]);
        assert_eq!(two["error"]["code"], "Base.1.12.GeneralError");
        assert_eq!(
            two["error"]["@Message.ExtendedInfo"][1]["MessageArgs"],
            json!(["X"])
        );
    }
}
