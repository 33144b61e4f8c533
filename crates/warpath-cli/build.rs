//! Build script of the `warpath` binary: records the git commit it is built from as
//! `WARPATH_COMMIT` (written into EXR metadata; "unknown" outside a git checkout), and asks
//! to run again when the checkout's HEAD or branch moves.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=WARPATH_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && std::path::Path::new(&path).exists()
        {
            let absolute = std::fs::canonicalize(&path).unwrap_or_else(|_| path.into());
            println!("cargo:rerun-if-changed={}", absolute.display());
        }
    }
}
