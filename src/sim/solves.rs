//! How a step's solve ended: the solves that did not converge at all stop
//! the run, those that ended above the tolerance are counted.

use crate::error::Result;
use crate::step::{SolverSettings, StepReport};

/// The steps whose solve ended above `solver.tolerance` (at the iteration
/// cap, or where the GPU's f32 residual would go no lower): the run goes
/// on, and its summary says how many there were, so that a result is
/// never read as converged when it was not.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Unconverged {
    /// How many steps.
    pub steps: u64,
    /// The first of them (counting from 1, as messages name steps).
    pub first_step: Option<u64>,
    /// The largest relative residual they ended at.
    pub worst_residual: f64,
}

impl Unconverged {
    /// Judges step `step`'s solve (at `time`, in `phase`): an error if it
    /// did not converge at all; counted if it ended above the tolerance.
    pub(super) fn judge(
        &mut self,
        solver: &SolverSettings,
        report: &StepReport,
        step: u64,
        time: f64,
        phase: &str,
    ) -> Result<()> {
        // A solve that ends at its iteration cap worse than it started has
        // not converged. Backward Euler's system is positive definite at
        // any step (a system that is not breaks CG down, which the backends
        // report), so this is the preconditioner losing to a stiff system:
        // a 2121-vertex strip of 0.5 mm edges at 10 ms steps needs about
        // 3200 block-Jacobi iterations from rest.
        if report.cg_iterations >= solver.max_iterations && report.cg_residual > 1.0 {
            return Err(crate::Error::Step(format!(
                "step {} (t = {:.4} s, phase {}): the solve did not converge (relative residual {:.2e} after {} \
                 iterations, solver.max_iterations): the system is too stiff for the preconditioner at this step \
                 (small edges, a long dt, stiff stretching); raise solver.max_iterations, or reduce dt, or use a \
                 coarser mesh",
                step, time, phase, report.cg_residual, report.cg_iterations
            )));
        }
        if report.cg_residual > solver.tolerance {
            self.record(step, report.cg_residual);
        }
        Ok(())
    }

    fn record(&mut self, step: u64, residual: f64) {
        self.steps += 1;
        self.first_step.get_or_insert(step);
        self.worst_residual = self.worst_residual.max(residual);
    }
}
