//! Debug aid: prints the parse diagnostics and item names of a file.
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump_ast FILE");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let (sources, module, _, diags) = skc_core::driver::parse_all(&path, &text, &skc_core::NoModules);
    for d in &diags {
        eprintln!("{}", skc_core::diagnostic::render(d, &sources, skc_core::diagnostic::ColorChoice::Never));
    }
    for item in &module.items {
        println!("{:?} {}", std::mem::discriminant(item), item.name().name);
    }
    println!("{} exprs", module.exprs.len());
}
