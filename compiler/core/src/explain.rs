//! Explanation pages for diagnostic codes (`skc explain CODE`). Each page says what the rule is, shows a failing
//! example and a fixed one.

pub struct Explanation {
    pub code: &'static str,
    pub title: &'static str,
    pub body: &'static str,
}

pub static EXPLANATIONS: &[Explanation] = &[];

pub fn explain(code: &str) -> Option<&'static Explanation> {
    EXPLANATIONS.iter().find(|e| e.code.eq_ignore_ascii_case(code))
}
