//! Cell-list ingest: structured cells (the shape the page adapters send) built from the input.
#![no_main]
use first_assert::{analyze_cells, Cell, Options, Output, OutputKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Split the input into cells and outputs at 0xff and 0xfe bytes.
    let mut cells = Vec::new();
    for (i, c) in data.split(|b| *b == 0xff).take(64).enumerate() {
        let outputs = c
            .split(|b| *b == 0xfe)
            .take(16)
            .enumerate()
            .map(|(j, o)| Output {
                kind: [OutputKind::Stream, OutputKind::Error, OutputKind::Text][j % 3],
                name: Some(if j % 2 == 0 { "stderr" } else { "stdout" }.to_string()),
                text: String::from_utf8_lossy(o).into_owned(),
                ..Default::default()
            })
            .collect();
        cells.push(Cell { index: i as u32, execution_count: (i % 3 != 0).then_some(i as i64), outputs, ..Default::default() });
    }
    let r = analyze_cells(&cells, &Options::default());
    if let Some(f) = r.first_assert {
        assert!(f.at.cell.is_some_and(|c| (c as usize) < cells.len()));
    }
});
