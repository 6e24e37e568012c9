//! Writes a generated fleet of failed runs (tests/fleet: jobs of ranks, one log per rank, every
//! tenth gzipped, torchrun's error files), for the fleet benchmark and the Python tests:
//!
//!   genfleet DIR JOBS RANKS [--kb N] [--seed N]
//!
//! Prints what it wrote as JSON: files, bytes, and the bugs that fired.

#[path = "../tests/fleet/mod.rs"]
mod fleet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str, default: u64| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
    };
    let (Some(dir), Some(jobs), Some(ranks)) = (args.first(), args.get(1).and_then(|v| v.parse().ok()), args.get(2).and_then(|v| v.parse().ok())) else {
        eprintln!("usage: genfleet DIR JOBS RANKS [--kb N] [--seed N]");
        std::process::exit(2);
    };
    let truth = fleet::write(std::path::Path::new(dir), jobs, ranks, opt("--kb", 16), opt("--seed", 1)).unwrap_or_else(|e| {
        eprintln!("genfleet: {e}");
        std::process::exit(1);
    });
    let mut bugs: Vec<String> = truth.logs.iter().filter(|l| l.2).map(|l| format!("{:?}", l.1)).collect();
    bugs.sort();
    bugs.dedup();
    let gz = truth.logs.iter().filter(|l| l.0.extension().is_some_and(|e| e == "gz")).count();
    println!(
        "{{\"logs\": {}, \"gzipped\": {gz}, \"error_files\": {}, \"bytes\": {}, \"bugs_fired\": {:?}}}",
        truth.logs.len(),
        truth.error_files.len(),
        truth.bytes,
        bugs
    );
}
