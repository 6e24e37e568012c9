//! `make calibration` (or `cargo run --release --example calibration -- DIR...`): how often a
//! cause stated at p is right, over the labelled outputs of each DIR (see `table.rs` for the
//! shapes it reads). Prints the reliability table, the expected calibration error and, with
//! `--misses`, every case whose stated cause is not the labelled one.

mod table;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let dirs: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if dirs.is_empty() {
        eprintln!("usage: calibration [--misses] DIR...");
        std::process::exit(2);
    }
    let mut all = Vec::new();
    for d in dirs {
        match table::cases(std::path::Path::new(d)) {
            Ok(c) => all.extend(c),
            Err(e) => {
                eprintln!("calibration: {e}");
                std::process::exit(2);
            }
        }
    }
    if misses {
        for c in all.iter().filter(|c| !c.right()) {
            println!("miss {}: labelled {}, stated {} at {:.2}", c.name, c.truth, c.stated, c.confidence);
        }
    }
    print!("{}", table::table(&all));
}
