//! GPU targets: which `sm_` architecture the PTX is for and which PTX ISA version it declares.
//!
//! The default is `sm_80` with PTX ISA 7.8: one PTX that every GPU from Ampere on can JIT,
//! and that drivers from CUDA 11.8 on accept.

use std::fmt;

/// A compilation target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The architecture, e.g. `sm_80` or `sm_90a`.
    pub sm: String,
    /// The PTX ISA version times ten, e.g. 78 for PTX 7.8.
    pub ptx: u32,
}

/// The architectures this compiler emits PTX for.
pub const SUPPORTED: &[&str] = &[
    "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100",
    "sm_100a", "sm_101", "sm_101a", "sm_103", "sm_103a", "sm_120", "sm_120a", "sm_121", "sm_121a",
];

impl Target {
    /// `sm_80`, PTX 7.8.
    pub fn default_target() -> Target {
        Target::parse("sm_80").expect("sm_80 is supported")
    }

    /// Parses an architecture name such as `sm_90`; the PTX version is the lowest that is at
    /// least 7.8 and knows the architecture.
    pub fn parse(name: &str) -> Result<Target, String> {
        let name = name.trim();
        if !SUPPORTED.contains(&name) {
            return Err(format!(
                "unknown GPU target `{name}`; supported targets are {}",
                SUPPORTED.join(", ")
            ));
        }
        let ptx = match name {
            "sm_90a" => 80,
            "sm_100" | "sm_100a" | "sm_101" | "sm_101a" => 86,
            "sm_120" | "sm_120a" => 87,
            "sm_103" | "sm_103a" | "sm_121" | "sm_121a" => 88,
            _ => 78,
        };
        Ok(Target {
            sm: name.to_string(),
            ptx,
        })
    }

    /// The architecture's number: 90 for `sm_90` and `sm_90a`.
    pub fn sm_number(&self) -> u32 {
        let digits: String = self
            .sm
            .trim_start_matches("sm_")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap_or(0)
    }

    /// Whether the target has `redux.sync` for 32-bit integers (sm_80 and newer).
    pub fn has_redux(&self) -> bool {
        self.sm_number() >= 80
    }

    /// The LLVM feature string selecting the PTX version.
    pub fn features(&self) -> String {
        format!("+ptx{}", self.ptx)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (PTX {}.{})", self.sm, self.ptx / 10, self.ptx % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_ampere_with_ptx_7_8() {
        let t = Target::default_target();
        assert_eq!((t.sm.as_str(), t.ptx), ("sm_80", 78));
    }

    #[test]
    fn newer_targets_get_newer_ptx() {
        assert_eq!(Target::parse("sm_90a").unwrap().ptx, 80);
        assert_eq!(Target::parse("sm_120").unwrap().ptx, 87);
    }

    #[test]
    fn redux_from_ampere_on() {
        let has = |sm: &str| Target::parse(sm).unwrap().has_redux();
        assert!(!has("sm_70") && !has("sm_75"));
        assert!(has("sm_80") && has("sm_90a") && has("sm_100") && has("sm_121a"));
        assert_eq!(Target::parse("sm_90a").unwrap().sm_number(), 90);
    }

    #[test]
    fn unknown_target_is_an_error_naming_the_choices() {
        let e = Target::parse("sm_99").unwrap_err();
        assert!(
            e.contains("unknown GPU target `sm_99`") && e.contains("sm_90"),
            "{e}"
        );
    }
}
