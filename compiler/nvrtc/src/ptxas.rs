//! Parsing of the ptxas `-v` resource report that NVRTC appends to the program log.
//!
//! The report (CUDA 13.0) looks like:
//! ```text
//! ptxas info    : 0 bytes gmem, 256 bytes cmem[3]
//! ptxas info    : Compiling entry function 'block_sum' for 'sm_80'
//! ptxas info    : Function properties for block_sum
//! ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 372 bytes cmem[0]
//! ptxas info    : Compile time = 3.035 ms
//! ptxas info    : Function properties for _Z6helperPKfi
//! ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ```
//! A "Function properties" block without a preceding "Compiling entry function"
//! line belongs to a non-inlined device function. Lines we do not recognise
//! (warnings, compile times, future additions) are skipped.

/// Resources ptxas reported for one function.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KernelResources {
    /// Mangled name as ptxas printed it (`extern "C"` kernels keep their plain name).
    pub name: String,
    /// Target of the compile, e.g. "sm_90" (device functions inherit the last one seen).
    pub arch: String,
    pub registers: u32,
    pub barriers: u32,
    pub stack_frame_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    /// Static shared memory per block.
    pub shared_bytes: u32,
    /// (bank, bytes) for each `N bytes cmem[bank]`; ptxas omits these on sm_90+.
    pub constant_bytes: Vec<(u32, u32)>,
    /// `true` for `__global__` kernels, `false` for non-inlined device functions.
    pub is_entry: bool,
}

impl KernelResources {
    /// Total spill traffic in bytes; non-zero means registers overflowed to local memory.
    pub fn spill_bytes(&self) -> u32 {
        self.spill_store_bytes.saturating_add(self.spill_load_bytes)
    }
}

/// Extracts one `KernelResources` per function from a program log, in log order.
pub fn parse_ptxas_report(log: &str) -> Vec<KernelResources> {
    let mut parser = ReportParser::default();
    for line in log.lines() {
        parser.feed(line);
    }
    parser.functions
}

#[derive(Default)]
struct ReportParser {
    functions: Vec<KernelResources>,
    /// Index of the function the next detail lines belong to.
    current: Option<usize>,
    /// Arch from the latest "Compiling ... for 'sm_XX'" line.
    last_arch: String,
    /// The current entry has not yet had its "Function properties" line.
    awaiting_properties: bool,
}

impl ReportParser {
    fn feed(&mut self, line: &str) {
        let text = line.trim();
        if let Some(rest) = after(text, "Compiling entry function ") {
            self.start_entry(rest);
        } else if let Some(rest) = after(text, "Function properties for ") {
            self.start_properties(unquote(rest.trim()));
        } else if text.contains("bytes stack frame") || text.starts_with("Used ") || text.contains(": Used ") {
            self.apply_counters(text);
        }
    }

    /// `'NAME' for 'sm_XX'`
    fn start_entry(&mut self, rest: &str) {
        let mut quoted = rest.split('\'').skip(1).step_by(2);
        let name = quoted.next().unwrap_or_default().to_string();
        if let Some(arch) = quoted.next() {
            self.last_arch = arch.to_string();
        }
        self.push(name, true);
        self.awaiting_properties = true;
    }

    /// Continues the entry just announced, or starts a device-function record.
    fn start_properties(&mut self, name: &str) {
        let continues_entry = self.awaiting_properties
            && self.current.and_then(|i| self.functions.get(i)).is_some_and(|f| f.name == name);
        self.awaiting_properties = false;
        if !continues_entry {
            self.push(name.to_string(), false);
        }
    }

    fn push(&mut self, name: String, is_entry: bool) {
        self.functions.push(KernelResources {
            name,
            arch: self.last_arch.clone(),
            is_entry,
            ..KernelResources::default()
        });
        self.current = Some(self.functions.len() - 1);
    }

    fn apply_counters(&mut self, text: &str) {
        let Some(function) = self.current.and_then(|i| self.functions.get_mut(i)) else {
            return;
        };
        // Drop the "ptxas info    :" / "ptxas         ." prefix, then read "N label" items.
        let body = text.split_once(" : ").or_else(|| text.split_once(" . ")).map_or(text, |(_, b)| b);
        for item in body.split(',') {
            apply_item(function, item.trim());
        }
    }
}

/// Applies one "N label" item such as "1024 bytes smem" or "used 1 barriers".
fn apply_item(function: &mut KernelResources, item: &str) {
    let item = item.strip_prefix("Used ").or_else(|| item.strip_prefix("used ")).unwrap_or(item);
    let Some((number, label)) = item.split_once(' ') else {
        return;
    };
    let Ok(value) = number.parse::<u32>() else {
        return;
    };
    match label.trim() {
        "registers" => function.registers = value,
        "barriers" => function.barriers = value,
        "bytes stack frame" => function.stack_frame_bytes = value,
        "bytes spill stores" => function.spill_store_bytes = value,
        "bytes spill loads" => function.spill_load_bytes = value,
        "bytes smem" => function.shared_bytes = value,
        other => {
            if let Some(bank) = cmem_bank(other) {
                function.constant_bytes.push((bank, value));
            }
        }
    }
}

/// "bytes cmem[3]" -> 3
fn cmem_bank(label: &str) -> Option<u32> {
    label.strip_prefix("bytes cmem[")?.strip_suffix(']')?.parse().ok()
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

fn unquote(text: &str) -> &str {
    text.trim_matches('\'')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> String {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn by_name<'a>(all: &'a [KernelResources], name: &str) -> &'a KernelResources {
        all.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no {name} in {all:#?}"))
    }

    #[test]
    fn single_kernel_sm90() {
        let all = parse_ptxas_report(&sample("simple_sm90.log"));
        assert_eq!(
            all,
            vec![KernelResources {
                name: "saxpy".into(),
                arch: "sm_90".into(),
                registers: 10,
                is_entry: true,
                ..KernelResources::default()
            }]
        );
    }

    #[test]
    fn shared_memory_and_barriers() {
        let all = parse_ptxas_report(&sample("shared_sm90.log"));
        assert_eq!(all.len(), 2);
        let sum = by_name(&all, "block_sum");
        assert_eq!((sum.registers, sum.barriers, sum.shared_bytes), (10, 1, 1024));
        let poly = by_name(&all, "poly");
        assert_eq!((poly.registers, poly.barriers, poly.shared_bytes), (8, 0, 0));
        assert!(all.iter().all(|f| f.is_entry && f.arch == "sm_90"));
    }

    #[test]
    fn constant_banks_on_sm80() {
        let all = parse_ptxas_report(&sample("shared_sm80.log"));
        let poly = by_name(&all, "poly");
        assert_eq!(poly.constant_bytes, vec![(0, 372)]);
        assert_eq!(poly.arch, "sm_80");
        let sum = by_name(&all, "block_sum");
        assert_eq!((sum.shared_bytes, sum.constant_bytes.clone()), (1024, vec![(0, 372)]));
    }

    #[test]
    fn stack_and_spills() {
        let all = parse_ptxas_report(&sample("spill_sm90.log"));
        let heavy = by_name(&all, "heavy");
        assert_eq!(heavy.registers, 32);
        assert_eq!(heavy.stack_frame_bytes, 1040);
        assert_eq!((heavy.spill_store_bytes, heavy.spill_load_bytes), (992, 1020));
        assert_eq!(heavy.spill_bytes(), 2012);
    }

    #[test]
    fn warnings_and_unknown_lines_are_skipped() {
        let all = parse_ptxas_report(&sample("spill_maxrreg16_sm90.log"));
        assert_eq!(all.len(), 1);
        assert_eq!(by_name(&all, "heavy").registers, 32);
        let debug = parse_ptxas_report(&sample("shared_debug_lineinfo_sm90.log"));
        assert_eq!(by_name(&debug, "block_sum").registers, 19);
    }

    #[test]
    fn device_functions_and_mangled_entries() {
        let all = parse_ptxas_report(&sample("noinline_sm90.log"));
        let names: Vec<&str> = all.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["empty", "_Z5templILi128EEvPf", "use_helper", "_Z6helperPKfi"]);
        let helper = by_name(&all, "_Z6helperPKfi");
        assert!(!helper.is_entry);
        assert_eq!((helper.arch.as_str(), helper.registers), ("sm_90", 0));
        let user = by_name(&all, "use_helper");
        assert!(user.is_entry);
        assert_eq!((user.registers, user.stack_frame_bytes), (32, 128));
        let templ = by_name(&all, "_Z5templILi128EEvPf");
        assert_eq!((templ.shared_bytes, templ.barriers), (1024, 1));
    }

    #[test]
    fn sm75_report_has_cmem_and_more_registers() {
        let all = parse_ptxas_report(&sample("noinline_sm75.log"));
        let user = by_name(&all, "use_helper");
        assert_eq!((user.arch.as_str(), user.registers), ("sm_75", 64));
        assert_eq!(user.constant_bytes, vec![(0, 372)]);
    }

    #[test]
    fn newer_arch_logs_parse() {
        for (file, arch) in [("simple_sm100.log", "sm_100"), ("simple_sm120.log", "sm_120")] {
            let all = parse_ptxas_report(&sample(file));
            assert_eq!(all.len(), 1, "{file}");
            assert_eq!(all[0].arch, arch);
            assert!(all[0].registers > 0);
        }
    }

    /// Older ptxas (CUDA 11/12) printed no barrier count and several cmem banks.
    #[test]
    fn older_format_with_several_cmem_banks() {
        let log = "ptxas info    : 0 bytes gmem\n\
                   ptxas info    : Compiling entry function '_Z3addPf' for 'sm_80'\n\
                   ptxas info    : Function properties for _Z3addPf\n    \
                   8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
                   ptxas info    : Used 24 registers, 4096 bytes smem, 360 bytes cmem[0], 8 bytes cmem[2]\n";
        let all = parse_ptxas_report(log);
        assert_eq!(all.len(), 1);
        let f = &all[0];
        assert_eq!((f.registers, f.shared_bytes, f.stack_frame_bytes), (24, 4096, 8));
        assert_eq!(f.constant_bytes, vec![(0, 360), (2, 8)]);
    }

    #[test]
    fn garbage_and_empty_logs_give_nothing() {
        assert!(parse_ptxas_report("").is_empty());
        let noise = "Used lots of registers\nptxas .  x bytes stack frame\nnvrtc: warning: something\n";
        assert!(parse_ptxas_report(noise).is_empty());
    }

    #[test]
    fn truncated_entry_line_still_records_name() {
        let all =
            parse_ptxas_report("ptxas info    : Compiling entry function 'k'\nptxas info    : Used 7 registers\n");
        assert_eq!((all[0].name.as_str(), all[0].registers, all[0].arch.as_str()), ("k", 7, ""));
    }
}
