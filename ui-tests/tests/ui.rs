//! Every compile error a kernel author can meet, with the exact text rustc prints
//! (`tests/ui/*.stderr`), and programs that must keep compiling (`tests/pass`).
//! Regenerate an expected file with `TRYBUILD=overwrite cargo test -p cuprum-ui-tests`, then
//! read it: the span must point at the user's mistake and the message must say what to write.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
