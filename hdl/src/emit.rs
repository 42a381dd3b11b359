//! Emitting a block's Verilog: the root module's name, modules shared between instances,
//! and the blocks synthesis keeps whole.

/// Emit a block's Verilog with its root module named `name` (submodules become `name$child`).
pub fn verilog_named<T: rust_hdl::prelude::Block>(uut: &T, name: &str) -> String {
    let mut defs = rust_hdl::prelude::ModuleDefines::default();
    rust_hdl::prelude::check_all(uut).expect("rust-hdl static checks");
    uut.accept(name, &mut defs);
    keep_marked(&hoist_shared(&defs.defines(), name))
}

/// A custom-Verilog body may define a module that all its instances share (the AES S-box, say)
/// between these two lines: the lines leave the body and are emitted once, after the other
/// modules (an identical copy from another block is dropped), and [`ROOT`] anywhere in the
/// output becomes the root module's name, so two generated files never define the same module.
/// Synthesis then maps the module once, not once per use (Yosys had not mapped the AES slot's
/// 952 S-boxes, case functions inlined at each use, after an hour).
pub const SHARED_BEGIN: &str = "// nicgen: shared module begin\n";
pub const SHARED_END: &str = "// nicgen: shared module end\n";
/// Stands for the root module's name in generated Verilog (see [`SHARED_BEGIN`]).
pub const ROOT: &str = "NICGEN_ROOT";

/// Move the [`SHARED_BEGIN`] blocks out of their modules (once each) and name [`ROOT`].
fn hoist_shared(v: &str, root: &str) -> String {
    let (begin, end) = (SHARED_BEGIN.trim_end(), SHARED_END.trim_end());
    let mut out = String::with_capacity(v.len());
    let mut shared: Vec<String> = vec![];
    let mut cur: Option<String> = None;
    for l in v.lines() {
        let t = l.trim();
        if t == begin {
            assert!(cur.is_none(), "nested shared module");
            cur = Some(String::new());
        } else if t == end {
            let m = cur.take().expect("shared module end without a begin");
            if !shared.contains(&m) {
                shared.push(m);
            }
        } else if let Some(m) = cur.as_mut() {
            *m += l.trim_start();
            m.push('\n');
        } else {
            out += l;
            out.push('\n');
        }
    }
    assert!(cur.is_none(), "shared module without an end");
    for m in shared {
        out += &m;
    }
    out.replace(ROOT, root)
}

/// A custom-Verilog body holding this line puts its module under `(* keep_hierarchy = "yes" *)`:
/// synthesis (Yosys `flatten`, Vivado's rebuilt hierarchy alike) maps it as a unit, not merged
/// with the selects around it.
pub const KEEP_HIERARCHY: &str = "// nicgen: keep_hierarchy\n";

/// Prefix the `module` line of every module whose body holds [`KEEP_HIERARCHY`] with the attribute.
fn keep_marked(v: &str) -> String {
    let marker = KEEP_HIERARCHY.trim_end();
    let lines: Vec<&str> = v.lines().collect();
    let mut keep = vec![false; lines.len()];
    let mut module = None;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("module ") {
            module = Some(i);
        } else if l.trim() == marker {
            if let Some(m) = module {
                keep[m] = true;
            }
        }
    }
    let mut out = String::with_capacity(v.len() + 64);
    for (i, l) in lines.iter().enumerate() {
        if keep[i] {
            out += "(* keep_hierarchy = \"yes\" *)\n";
        }
        out += l;
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod shared_tests {
    use super::*;

    #[test]
    fn a_shared_module_is_emitted_once_under_the_root_name() {
        let shared = format!("{SHARED_BEGIN}  module {ROOT}$m(x);\n  input x;\n  endmodule\n{SHARED_END}");
        let v = format!("module a(x);\n{shared}  {ROOT}$m u (.x(x));\nendmodule\nmodule b(x);\n{shared}  {ROOT}$m u (.x(x));\nendmodule\n");
        let out = hoist_shared(&v, "top");
        assert_eq!(out.matches("module top$m(x);").count(), 1, "{out}");
        assert_eq!(out.matches("top$m u (.x(x));").count(), 2, "{out}");
        assert!(!out.contains(ROOT) && !out.contains("nicgen: shared"), "{out}");
        // the definition comes after both modules that use it, unindented
        assert!(out.ends_with("module top$m(x);\ninput x;\nendmodule\n"), "{out}");
        // a different module under the same markers is kept too
        let other = format!("module c;\n{SHARED_BEGIN}module {ROOT}$n;\nendmodule\n{SHARED_END}endmodule\n");
        assert_eq!(hoist_shared(&(v + &other), "top").matches("\nmodule top$").count(), 2);
    }

    #[test]
    #[should_panic(expected = "without an end")]
    fn an_unclosed_shared_module_is_refused() {
        hoist_shared(&format!("module a;\n{SHARED_BEGIN}module x;\nendmodule\n"), "top");
    }
}
