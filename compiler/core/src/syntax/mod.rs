//! Lexing and parsing: text to [`ast::Module`]. Parsing never fails; it returns the tree it could build, with
//! `ExprKind::Error` nodes where it recovered, and the syntax diagnostics.

pub mod ast;
pub mod expr_map;
pub mod item_attributes;
pub mod lexer;
pub mod name;
pub mod parser;

pub use parser::parse;
