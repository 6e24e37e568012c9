//! A notebook after the rerun the report asks for: restart, the probe cell first, then the
//! user's cells again. The probe's banner (`first-assert probe on: …`) marks where the probed
//! run began; errors from before it that are still on the page are superseded, and are not
//! read as this run's.
//!
//! Execution counts say what ran when. The probe cell ran first after the restart, so a cell
//! whose count is lower ran before it. Counts start again at 1 after a restart, so an old cell
//! may also carry a higher count than the new run's: a device-side assert after the probe's
//! `FirstAssertError` is one of those (the probe stops the bad op before it runs, so its run
//! shows no assert after the catch). Cells whose outputs show no error are left alone.

use crate::facts::{BANNER, PROBE_ERROR};
use crate::input::{Cell, OutputKind};

/// What the rerun tells of a notebook.
#[derive(Debug, Default, PartialEq)]
pub struct Rerun {
    /// The cell whose output is the probe's banner, and its execution count.
    pub probe: Option<(u32, i64)>,
    /// Cells (notebook index) whose outputs are from before the restart.
    pub superseded: Vec<u32>,
}

/// The banner's earlier words (the Chinese probe said 探测 before it said 探针): notebooks run
/// with that probe still mark a probed run.
const OLD_BANNERS: &[&str] = &["first-assert 探测已开启"];

/// Reads the probed run and the superseded cells of a notebook's cells.
pub fn read(cells: &[Cell]) -> Rerun {
    let has = |c: &Cell, keys: &[&str]| c.outputs.iter().any(|o| keys.iter().any(|k| o.text.contains(k)));
    let probe = cells
        .iter()
        .filter_map(|c| Some((c.index, c.execution_count?)).filter(|_| has(c, &BANNER) || has(c, OLD_BANNERS)))
        .max_by_key(|&(_, n)| n);
    let Some((_, from)) = probe else { return Rerun::default() };
    let count = |c: &Cell| c.execution_count.filter(|_| !c.outputs.is_empty());
    let caught = cells.iter().filter_map(|c| count(c).filter(|&n| n >= from && has(c, &[PROBE_ERROR]))).max();
    let asserts = |c: &Cell| c.outputs.iter().any(|o| reports_assert(&o.text));
    let error = |c: &Cell| c.outputs.iter().any(|o| o.kind == OutputKind::Error) || asserts(c);
    let superseded = cells
        .iter()
        .filter(|c| error(c))
        .filter(|c| count(c).is_some_and(|n| n < from || caught.is_some_and(|k| n > k) && asserts(c)))
        .map(|c| c.index)
        .collect();
    Rerun { probe, superseded }
}

/// Whether an output reports a device-side assert in one of the host's usual words (a cheap
/// look, to place a runtime log or tell an old run's output: the scan decides).
pub fn reports_assert(text: &str) -> bool {
    ["device-side assert", "cudaErrorAssert", "CUDA_ERROR_ASSERT", "hipErrorAssert", "设备端断言"]
        .iter()
        .any(|k| text.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Output;

    fn cell(index: u32, count: Option<i64>, text: &str) -> Cell {
        let outputs = if text.is_empty() {
            vec![]
        } else {
            vec![Output { kind: OutputKind::Stream, name: Some("stderr".into()), text: text.into() }]
        };
        Cell { index, execution_count: count, cell_type: crate::input::CellType::Code, source: String::new(), outputs }
    }

    const ON: &str = "first-assert probe on: the inputs of 39 PyTorch functions are checked before they run.";
    const CAUGHT: &str = "FirstAssertError: F.cross_entropy: target out of range.";
    const ASSERT: &str = "RuntimeError: CUDA error: device-side assert triggered";

    #[test]
    fn outputs_from_before_the_restart_are_superseded() {
        // Before the restart the training cell ran as [14] and later cells echoed the assert;
        // after it: the probe [1], the setup [2], the training [3], caught.
        let cells = [
            cell(0, Some(1), ON),
            cell(1, Some(2), "ok"),
            cell(2, Some(12), ASSERT),
            cell(3, Some(3), CAUGHT),
            cell(4, Some(15), ASSERT),
            cell(5, Some(16), "accuracy 0.4"),
            cell(6, None, ""),
        ];
        assert_eq!(read(&cells), Rerun { probe: Some((0, 1)), superseded: vec![2, 4] });
    }

    #[test]
    fn an_error_with_a_lower_count_than_the_probes_is_superseded() {
        // The probe ran without a restart ([4]): what ran before it is from before it.
        let mut error = cell(2, Some(2), "");
        error.outputs.push(Output {
            kind: OutputKind::Error,
            name: None,
            text: "NameError: name 'y' is not defined".into(),
        });
        // Today's Chinese banner, and the one the probe printed before.
        for banner in ["first-assert 探针已开启：39 个 PyTorch 函数", "first-assert 探测已开启：39 个 PyTorch 函数"] {
            let cells = [cell(0, Some(4), banner), cell(1, Some(3), "loss 0.3"), error.clone()];
            assert_eq!(read(&cells), Rerun { probe: Some((0, 4)), superseded: vec![2] }, "{banner}");
        }
        assert!(BANNER[1].contains("探针"), "{BANNER:?}");
    }

    #[test]
    fn without_the_banner_nothing_is_superseded() {
        let cells = [cell(0, Some(1), "import torch"), cell(1, Some(9), ASSERT), cell(2, Some(3), CAUGHT)];
        assert_eq!(read(&cells), Rerun::default());
        // The banner's words in a cell's code are not the banner's output.
        let mut quoted = cell(0, Some(2), "ok");
        quoted.source = format!("print({ON:?})");
        assert_eq!(read(&[quoted, cell(1, Some(1), ASSERT)]), Rerun::default());
    }

    #[test]
    fn without_a_catch_an_assert_in_the_probed_run_is_this_runs() {
        // An op the probe does not check asserted after the restart: it is the run's own.
        let cells = [cell(0, Some(1), ON), cell(1, Some(2), ASSERT), cell(2, Some(7), ASSERT)];
        assert_eq!(read(&cells).superseded, Vec::<u32>::new());
    }
}
