//! A notebook as the analysis reads it, before anything is scanned: its cells in the order
//! they ran, the probed run and the cells from before it ([`rerun`]), the checks worked out on
//! its cells ([`checks`]), and what the diagnosis needs of its cells ([`InputContext`]). The
//! pipeline scans the outputs of the cells this says to read, in this order.

pub mod checks;
pub mod lineage;
pub mod rerun;

use crate::facts::{CellSource, InputContext};
use crate::input::{Cell, CellType, Notebook, OutputKind};
use crate::order;

/// A notebook's run, read.
pub struct Run<'a> {
    /// The cells in the order they ran; cells that never ran (no execution count) after those
    /// that did, in page order.
    pub order: Vec<&'a Cell>,
    /// The probed run and the cells from before it.
    pub rerun: rerun::Rerun,
    /// What the diagnosis needs of the cells.
    pub ctx: InputContext,
}

impl<'a> Run<'a> {
    /// Reads `nb`'s run; `colab` says the caller knows it ran on Colab (a notebook saved by
    /// Colab says so itself).
    pub fn of(nb: &'a Notebook, colab: bool) -> Run<'a> {
        let mut order: Vec<&Cell> = nb.cells.iter().collect();
        order::sort_by_key(&mut order, |c| (order::ordered(c.execution_count.unwrap_or(i64::MAX)), u64::from(c.index)));
        // After a rerun with the probe, outputs from before the restart are not this run's.
        let rerun = rerun::read(&nb.cells);
        let cells = order
            .iter()
            .enumerate()
            .filter(|(_, c)| c.cell_type == CellType::Code)
            .map(|(run, c)| CellSource {
                index: c.index,
                execution_count: c.execution_count,
                order: run as u64,
                source: c.source.clone(),
            })
            .collect();
        // In page order (no sort: its code for u32 would cost the package 2 KB).
        let mut unreadable: Vec<u32> = Vec::new();
        for c in &nb.cells {
            if c.outputs.iter().any(|o| o.kind == OutputKind::Unreadable) && !unreadable.contains(&c.index) {
                unreadable.push(c.index);
            }
        }
        let ctx = InputContext {
            cells,
            cell_count: Some(nb.cells.iter().map(|c| c.index + 1).max().unwrap_or(0).max(nb.cells.len() as u32)),
            host: (nb.host == Some("colab") || colab).then_some("colab"),
            unreadable,
            probe_cell: rerun.probe,
            superseded: rerun.superseded.clone(),
            checks: checks::run(&order),
            kernel: None,
            index: None,
        };
        Run { order, rerun, ctx }
    }

    /// Whether a cell's outputs are read: a code cell's, from this run.
    pub fn reads(&self, c: &Cell) -> bool {
        c.cell_type == CellType::Code && !self.rerun.superseded.contains(&c.index)
    }

    /// Where in the run the first read cell that reports a device-side assert is: a runtime log
    /// read beside the notebook goes there (its kernel lines were printed while it ran).
    pub fn first_assert_run(&self) -> Option<usize> {
        self.order.iter().position(|c| {
            !self.rerun.superseded.contains(&c.index) && c.outputs.iter().any(|o| rerun::reports_assert(&o.text))
        })
    }
}
