//! Spellings of every secret word the filter knows, for property tests of the filter and of
//! the captures that use it: each letter's case flipped at will, separators (`_ - . space`)
//! inside and around the word, qualifiers before it (`Admin`, `Setup`, `Bios`, `Hdd`…) or any
//! word and a separator, digits and storage words (`Hash`, `String`) after it.

use proptest::prelude::*;

use super::{KEY_ENDINGS, QUALIFIERS, SECRET_HEADS, TRAILERS};

/// Separators a name may carry between two letters: none most often.
fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => Just(""),
        1 => prop::sample::select(vec!["_", "-", ".", " "]),
    ]
}

/// `word` with the case of each letter flipped at will, and `inside` separators between its
/// letters.
fn spelt(word: impl Strategy<Value = &'static str>, inside: bool) -> impl Strategy<Value = String> {
    (
        word,
        prop::collection::vec(any::<bool>(), 16),
        prop::collection::vec(separator(), 16),
    )
        .prop_map(move |(word, upper, separators)| {
            let mut spelt = String::new();
            for (i, c) in word.chars().enumerate() {
                if i > 0 && inside {
                    spelt.push_str(separators[i % separators.len()]);
                }
                spelt.push(if upper[i % upper.len()] {
                    c.to_ascii_uppercase()
                } else {
                    c
                });
            }
            spelt
        })
}

/// Every word the filter takes for a secret on its own.
fn secret_word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(
        SECRET_HEADS
            .iter()
            .chain(KEY_ENDINGS)
            .copied()
            .collect::<Vec<_>>(),
    )
}

/// What stands before the secret word: nothing; one or two qualifiers, each in any case and
/// with or without a separator after it; or any word and a separator (without one, any word
/// ending in a short secret word could be harmless: `Monkey`, `Spin`, `Bypass`).
fn prefix() -> impl Strategy<Value = String> {
    let qualifier = (
        spelt(prop::sample::select(QUALIFIERS.to_vec()), false),
        separator(),
    )
        .prop_map(|(qualifier, separator)| format!("{qualifier}{separator}"));
    let separated = prop::sample::select(vec!["_", "-", ".", " "]);
    prop_oneof![
        Just(String::new()),
        prop::collection::vec(qualifier, 1..=2).prop_map(|parts| parts.concat()),
        ("[A-Za-z][A-Za-z0-9]{0,7}", separated)
            .prop_map(|(word, separator)| format!("{word}{separator}")),
    ]
}

/// What stands after the secret word: up to two of a number and a storage word (any case),
/// each with or without a separator before it.
fn suffix() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        "[0-9]{1,2}".prop_map(String::from),
        spelt(prop::sample::select(TRAILERS.to_vec()), false),
    ];
    prop::collection::vec((separator(), part), 0..=2).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(separator, part)| format!("{separator}{part}"))
            .collect()
    })
}

/// A name that holds a secret, however it is spelt.
pub fn secret_name() -> impl Strategy<Value = String> {
    (prefix(), spelt(secret_word(), true), suffix())
        .prop_map(|(prefix, word, suffix)| format!("{prefix}{word}{suffix}"))
}
