//! [`Name`]: the text of an identifier in the AST, an immutable string that does not allocate when short.
//!
//! Why not `String`: a file of 100,000 lines has about half a million identifiers, and one allocation (and one
//! free) per identifier was the largest cost of parsing. Names of up to [`INLINE_CAPACITY`] bytes (nearly all of
//! them) are stored in place, longer ones behind a shared pointer; a clone is a copy of 16 bytes or a reference
//! count. Sixteen bytes keep an `Ident` at 32 and the expression arena small (it is the largest allocation of a
//! check, and fresh memory costs a page fault per 4 KiB). A `Name` reads like a `String`: it dereferences to `str`, compares with `str`, `&str` and `String`,
//! hashes and orders as its text, and prints (`Display` and `Debug`) as a `String` would.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// Longest name stored in place (the rest of the 16 bytes hold the length and the variant).
pub const INLINE_CAPACITY: usize = 14;

#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    /// The first `len` bytes of `bytes` are the text, the rest are zero.
    Inline { len: u8, bytes: [u8; INLINE_CAPACITY] },
    /// A thin pointer (an `Arc<str>` would take 16 bytes on its own).
    Heap(Arc<Box<str>>),
}

impl Name {
    pub fn new(text: &str) -> Name {
        if text.len() > INLINE_CAPACITY {
            return Name(Repr::Heap(Arc::new(Box::from(text))));
        }
        Name(Repr::Inline { len: text.len() as u8, bytes: inline_bytes(text.as_bytes()) })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // SAFETY: `Name::new` is the only constructor of `Inline`; it copies the whole of a `&str` (valid
            // UTF-8) into the first `len` bytes, and nothing ever changes them.
            Repr::Inline { len, bytes } => unsafe { std::str::from_utf8_unchecked(&bytes[..*len as usize]) },
            Repr::Heap(text) => text,
        }
    }
}

/// `text` (at most [`INLINE_CAPACITY`] bytes) followed by zeros. Copied as two overlapping words (or one byte at
/// a time when shorter than four) instead of by a call to copy memory: the parser makes a name for every
/// identifier, most of them a few bytes long.
#[inline]
fn inline_bytes(text: &[u8]) -> [u8; INLINE_CAPACITY] {
    let mut bytes = [0; INLINE_CAPACITY];
    let len = text.len();
    if len >= 8 {
        bytes[..8].copy_from_slice(&text[..8]);
        bytes[len - 8..len].copy_from_slice(&text[len - 8..]);
    } else if len >= 4 {
        bytes[..4].copy_from_slice(&text[..4]);
        bytes[len - 4..len].copy_from_slice(&text[len - 4..]);
    } else {
        for (slot, byte) in bytes.iter_mut().zip(text) {
            *slot = *byte;
        }
    }
    bytes
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for Name {
    /// Two short names compare as their 15 bytes (the bytes past the length are zero), without a call to compare
    /// memory: the type checker compares names for every name it resolves.
    fn eq(&self, other: &Name) -> bool {
        match (&self.0, &other.0) {
            (Repr::Inline { len, bytes }, Repr::Inline { len: other_len, bytes: other_bytes }) => {
                len == other_len && bytes == other_bytes
            }
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Name {
    /// As the text hashes, so that a map keyed by `Name` can be searched with a `&str` (`Borrow<str>`).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

macro_rules! compare_with_text {
    ($($text:ty),*) => {$(
        impl PartialEq<$text> for Name {
            fn eq(&self, other: &$text) -> bool {
                self.as_str() == &other[..]
            }
        }

        impl PartialEq<Name> for $text {
            fn eq(&self, other: &Name) -> bool {
                &self[..] == other.as_str()
            }
        }
    )*};
}

compare_with_text!(str, &str, String);

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::new(&text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::new(text)
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.as_str().to_string()
    }
}

impl From<&Name> for String {
    fn from(name: &Name) -> String {
        name.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_names_read_as_their_text() {
        let long = "warp_shuffle_down";
        for text in ["", "x", "thread_idx_x", "fourteen_bytes", long, "\u{e9}t\u{e9}_\u{e9}t\u{e9}_\u{e9}"] {
            let name = Name::new(text);
            assert_eq!(name.as_str(), text);
            assert_eq!(name, text);
            assert_eq!(name.clone(), Name::from(text.to_string()));
            assert_eq!(format!("{name}"), text);
            assert_eq!(format!("{name:?}"), format!("{text:?}"));
            assert_eq!(String::from(name), text);
        }
        assert!(matches!(Name::new("fourteen_bytes").0, Repr::Inline { .. }));
        for len in 0..=INLINE_CAPACITY {
            let text = &"abcdefghijklmn"[..len];
            let Repr::Inline { len: stored, bytes } = Name::new(text).0 else { panic!("{text} is inline") };
            assert_eq!((stored as usize, &bytes[..len]), (len, text.as_bytes()));
            assert!(bytes[len..].iter().all(|&b| b == 0), "{text}: the bytes past the text are zero");
        }
        assert!(matches!(Name::new(long).0, Repr::Heap(_)));
        assert_eq!(std::mem::size_of::<Name>(), 16);
    }

    #[test]
    fn maps_keyed_by_names_are_searched_by_text() {
        let mut map = std::collections::HashMap::new();
        map.insert(Name::new("scale"), 1);
        assert_eq!(map.get("scale"), Some(&1));
        assert!(Name::new("a") < Name::new("b"));
    }
}
