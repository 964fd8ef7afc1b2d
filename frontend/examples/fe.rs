//! Debug driver: prints tokens, AST or diagnostics for a file.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&args[2]).unwrap_or_default();
    let opts = frontend::Options::default();
    let r = match args[1].as_str() {
        "tokens" => frontend::lex(&src, &opts).map(|t| frontend::dump_tokens(&t)),
        "ast" => frontend::parse(&src, &opts).map(|t| frontend::dump_ast(&t)),
        _ => frontend::check(&src, &opts).map(|p| format!("{p:#?}")),
    };
    match r {
        Ok(s) => print!("{s}"),
        Err(d) => print!("{}", frontend::render_diagnostics(&args[2], &src, &d)),
    }
}
