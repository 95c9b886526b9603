//! Text as tools and operators save it: UTF-8 (with or without BOM) or the UTF-16 that
//! Windows PowerShell's `>` writes.

/// Why bytes are not text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    /// Not UTF-8, and no UTF-16 byte order mark or pattern either.
    #[error("not UTF-8 or UTF-16 text (invalid UTF-8 at byte {0})")]
    Unknown(usize),
    /// UTF-16 with a broken surrogate pair or an odd length.
    #[error("malformed UTF-16 text")]
    BadUtf16,
}

/// Decodes UTF-8 (a BOM is dropped) or UTF-16 LE/BE (by BOM, or BOM-less LE when every other
/// byte of ASCII text is zero).
pub fn decode_text(bytes: &[u8]) -> Result<String, EncodingError> {
    let utf16 = |body: &[u8], little: bool| -> Result<String, EncodingError> {
        if !body.len().is_multiple_of(2) {
            return Err(EncodingError::BadUtf16);
        }
        let units = body.chunks_exact(2).map(|pair| {
            if little {
                u16::from_le_bytes([pair[0], pair[1]])
            } else {
                u16::from_be_bytes([pair[0], pair[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| EncodingError::BadUtf16)
    };
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => std::str::from_utf8(rest)
            .map(str::to_owned)
            .map_err(|e| EncodingError::Unknown(e.valid_up_to() + 3)),
        [0xFF, 0xFE, rest @ ..] => utf16(rest, true),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, false),
        _ => match std::str::from_utf8(bytes) {
            Ok(text) if !looks_utf16_le(bytes) => Ok(text.to_owned()),
            Ok(_) => utf16(bytes, true),
            Err(e) if looks_utf16_le(bytes) => {
                utf16(bytes, true).map_err(|_| EncodingError::Unknown(e.valid_up_to()))
            }
            Err(e) => Err(EncodingError::Unknown(e.valid_up_to())),
        },
    }
}

/// BOM-less UTF-16 LE of mostly ASCII text: zero bytes at odd offsets.
fn looks_utf16_le(bytes: &[u8]) -> bool {
    bytes.len() >= 4
        && bytes.len().is_multiple_of(2)
        && bytes.iter().skip(1).step_by(2).take(64).all(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str, bom: bool) -> Vec<u8> {
        let mut bytes = if bom { vec![0xFF, 0xFE] } else { Vec::new() };
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        bytes
    }

    #[test]
    fn decodes_what_windows_writes() {
        assert_eq!(decode_text(b"Name : M1\r\n").unwrap(), "Name : M1\r\n");
        assert_eq!(decode_text(b"\xEF\xBB\xBF{}").unwrap(), "{}");
        assert_eq!(
            decode_text(&utf16le("Name : SLOT 3 Port 1\r\n", true)).unwrap(),
            "Name : SLOT 3 Port 1\r\n"
        );
        assert_eq!(
            decode_text(&utf16le("Name : M1", false)).unwrap(),
            "Name : M1"
        );
        let mut be = vec![0xFE, 0xFF];
        be.extend("ok".encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(decode_text(&be).unwrap(), "ok");
        assert!(decode_text(&[0xFF, 0xFE, 0x41]).is_err());
        assert!(decode_text(&[0xC3, 0x28, 0x41, 0x42]).is_err());
    }
}
