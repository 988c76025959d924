//! Lexing and parsing: text to [`ast::Module`]. Parsing never fails; it returns the tree it could build, with
//! `ExprKind::Error` nodes where it recovered, and the syntax diagnostics.

pub mod ast;
mod builder;
mod depth;
mod drive;
mod errors;
pub mod expr_map;
#[allow(clippy::all, unused_parens, unused_imports, dead_code)]
#[rustfmt::skip]
mod grammar;
pub mod item_attributes;
pub mod lexer;
mod lift;
mod literals;
pub mod name;
mod operators;
pub mod parser;
pub mod split;
pub mod tokens;

pub use builder::{MATCH_VALUE_PREFIX, RECORD_UPDATE_COPY, TUPLE_VALUE_PREFIX};
pub use parser::parse;
