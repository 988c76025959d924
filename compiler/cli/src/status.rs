//! Progress lines on stderr in cargo's style: a verb right-aligned in twelve columns, bold green on a terminal
//! (`   Compiling reduce.sk (sm_90)`, `     Writing out/reduce.ptx`, `    Finished 1 file in 0.21s`). Colour
//! follows `--color` and `NO_COLOR` as diagnostics do.

use skc_core::diagnostic::ColorChoice;

use crate::output::color_choice;
use crate::Color;

/// Where status lines go and whether they are coloured.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    colored: bool,
}

impl Status {
    pub fn new(color: Color) -> Status {
        Status { colored: color_choice(color) == ColorChoice::Always }
    }

    /// One line: `verb` right-aligned to column twelve, then `message`.
    pub fn line(&self, verb: &str, message: impl std::fmt::Display) {
        errln!("{}", self.format(verb, &message.to_string()));
    }

    fn format(&self, verb: &str, message: &str) -> String {
        if self.colored {
            format!("\u{1b}[1m\u{1b}[32m{verb:>12}\u{1b}[0m {message}")
        } else {
            format!("{verb:>12} {message}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verb_ends_in_column_twelve_and_colour_only_when_asked() {
        let plain = Status { colored: false };
        assert_eq!(plain.format("Compiling", "a.sk"), "   Compiling a.sk");
        assert_eq!(plain.format("Writing", "out/a.cu"), "     Writing out/a.cu");
        let colored = Status { colored: true };
        assert_eq!(colored.format("Finished", "x"), "\u{1b}[1m\u{1b}[32m    Finished\u{1b}[0m x");
    }
}
