//! The source position of a PTX instruction, from the line information
//! (`.loc` and `.file`) that `-lineinfo` writes, nvcc's and kernelc's alike:
//! a fault can then name the source line as well as the PTX line.
//!
//! The PTX text is read as text, not through the parser (which skips the
//! directives): the position of an instruction is the last `.loc` before
//! it in its function, whose body opens with a line holding only `{`.

/// A source position: the path `.file` names, the line and the column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePosition {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// The source position of the instruction at byte `offset` of `src`, or
/// `None` when no `.loc` before it in its function names a known file and
/// a line (nvcc's line 0 is no line).
pub fn source_position(src: &str, offset: usize) -> Option<SourcePosition> {
    let before = src.get(..offset)?;
    let (file, line, col) = before
        .lines()
        .rev()
        .take_while(|l| *l != "{")
        .find_map(loc_numbers)?;
    if line == 0 {
        return None;
    }
    let file = src
        .lines()
        .filter_map(file_directive)
        .find(|(n, _)| *n == file)?
        .1;
    Some(SourcePosition { file, line, col })
}

/// `.loc F L C` (and nvcc's `, function_name ..., inlined_at ...` after it).
fn loc_numbers(line: &str) -> Option<(u32, u32, u32)> {
    let rest = line.trim_start().strip_prefix(".loc")?;
    let mut nums = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| w.parse::<u32>().ok());
    Some((nums.next()??, nums.next()??, nums.next()??))
}

/// `.file N "path"` (a path with `\"` or `\\` unescaped).
fn file_directive(line: &str) -> Option<(u32, String)> {
    let rest = line.trim_start().strip_prefix(".file")?.trim_start();
    let (n, path) = rest.split_once(char::is_whitespace)?;
    let quoted = path.trim().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some((n.parse().ok()?, out)),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".entry k()\n{\n\t.loc\t1 12 9\n\tld.global.f32 %f1, [%rd1];\n\tret;\n}\n.entry j()\n{\n\tret;\n}\n\t.file\t1 \"/a \\\"b\\\".cu\"\n";

    #[test]
    fn an_instruction_is_at_the_last_loc_of_its_function() {
        let at = PTX.find("ld.global").unwrap();
        let pos = source_position(PTX, at).unwrap();
        assert_eq!(
            (pos.file.as_str(), pos.line, pos.col),
            ("/a \"b\".cu", 12, 9)
        );
        assert!(source_position(PTX, PTX.find("ret").unwrap()).is_some());
        // The next function has no `.loc`: the first one's does not leak.
        let second = PTX.rfind("ret").unwrap();
        assert_eq!(source_position(PTX, second), None);
        assert_eq!(source_position("{\n\t.loc\t1 0 5\n\tret;\n}\n", 14), None);
    }
}
