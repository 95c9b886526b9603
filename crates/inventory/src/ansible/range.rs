//! Host ranges in an Ansible inventory's host names (`node[01:04]`).

/// The most names one range expands to: a typo such as `[1:1000000]` is not a fleet.
const MAX_RANGE: u64 = 10_000;

/// Why a host name's range is refused; the reader adds the file, line and host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum RangeError {
    /// `node[1:4` without its `]`.
    #[error("an unclosed `[` in a host name")]
    Unclosed,
    /// `rack[1:2]-node[1:4]`.
    #[error("only one host range `[a:b]` per name is read")]
    MoreThanOne,
    /// `node[a:f]`, `node[1:4:0]`, `node[1]`.
    #[error(
        "host range `[{range}]`: only numeric ranges `[START:END]` or `[START:END:STEP]` are read"
    )]
    NotNumeric {
        /// The range as written, without its brackets.
        range: String,
    },
    /// `node[4:1]`, or more than [`MAX_RANGE`] names.
    #[error("host range `[{range}]` is empty or too long")]
    EmptyOrTooLong {
        /// The range as written, without its brackets.
        range: String,
    },
}

/// Expands one numeric host range (`node[01:04]`, `node[1:9:2]`); refuses letter ranges.
pub(super) fn expand_range(name: &str) -> Result<Vec<String>, RangeError> {
    let Some((prefix, rest)) = name.split_once('[') else {
        return Ok(vec![name.to_owned()]);
    };
    let Some((range, suffix)) = rest.split_once(']') else {
        return Err(RangeError::Unclosed);
    };
    if suffix.contains('[') {
        return Err(RangeError::MoreThanOne);
    }
    let parts: Vec<&str> = range.split(':').collect();
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| p.parse().ok()).collect();
    let (start, end, step) = match (parts.len(), numbers) {
        (2, Some(n)) => (n[0], n[1], 1),
        (3, Some(n)) if n[2] > 0 => (n[0], n[1], n[2]),
        _ => {
            return Err(RangeError::NotNumeric {
                range: range.to_owned(),
            });
        }
    };
    if start > end || (end - start) / step > MAX_RANGE {
        return Err(RangeError::EmptyOrTooLong {
            range: range.to_owned(),
        });
    }
    let width = if parts[0].starts_with('0') {
        parts[0].len()
    } else {
        0
    };
    Ok((start..=end)
        .step_by(usize::try_from(step).unwrap_or(1))
        .map(|n| format!("{prefix}{n:0width$}{suffix}"))
        .collect())
}
