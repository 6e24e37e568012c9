//! Reading Python source: whether a line only reads, moves or prints data (and so cannot fire
//! a device-side assert by itself), as the blamed line of a late-reported error usually does.

use crate::rules::ruleset;
use crate::scan::patterns::patterns;

/// Calls that cannot fire a device-side assert: they read, move, print, reduce or create data,
/// or step an optimizer. A line whose every call is one of these only *reports* an assert that
/// happened earlier (CUDA reports kernel errors at the next synchronising call).
pub const INNOCENT_CALLS: &[&str] = &[
    "item",
    "cpu",
    "tolist",
    "numpy",
    "to",
    "cuda",
    "print",
    "float",
    "int",
    "len",
    "str",
    "repr",
    "format",
    "sum",
    "mean",
    "std",
    "eq",
    "ne",
    "gt",
    "lt",
    "argmax",
    "argmin",
    "max",
    "min",
    "abs",
    "round",
    "detach",
    "clone",
    "copy_",
    "half",
    "double",
    "long",
    "bool",
    "append",
    "extend",
    "all",
    "any",
    "backward",
    "step",
    "zero_grad",
    "synchronize",
    "empty_cache",
    "_cuda_emptyCache",
    "manual_seed",
    "manual_seed_all",
    "memory_allocated",
    "memory_reserved",
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "rand",
    "randn",
    "randint",
    "arange",
    "stack",
    "cat",
    "view",
    "reshape",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "contiguous",
    "expand_as",
    "expand",
    "flatten",
    "relu",
    "sigmoid",
    "softmax",
    "exp",
    "log",
    "sqrt",
    "pow",
    "mul",
    "add",
    "sub",
    "div",
    "mul_",
    "add_",
    "addcmul_",
    "addcdiv_",
    "isnan",
    "isinf",
    "range",
    "enumerate",
    "zip",
    "isinstance",
    "update",
    "manual_seed",
    "set_device",
    "_apply",
    "convert",
    "clip_grad_norm_",
    "apply_",
    "fill_",
    "zero_",
    "requires_grad_",
    "write",
    "save",
    "savez",
    "numel",
    "size",
    "dim",
    "float_",
    "t",
    "is_floating_point",
    "is_complex",
    "type",
    "get",
    "keys",
    "items",
    "values",
];

/// True when every call on a source line is in [`INNOCENT_CALLS`] and nothing on it indexes
/// with a variable (`x[idx]` can assert; slices such as `x[:k]` cannot).
pub fn innocent_line(code: &str) -> bool {
    let p = patterns();
    let code = code.split(" #").next().unwrap_or(code);
    if ruleset().names_asserting_op(code) {
        return false;
    }
    let mut calls = 0;
    for c in p.call.captures_iter(code) {
        if c.name("sub").is_some() {
            return false;
        }
        let name = c["name"].rsplit('.').next().unwrap_or("");
        if !INNOCENT_CALLS.contains(&name) {
            return false;
        }
        calls += 1;
    }
    let indexes = p.subscript.captures_iter(code).any(|c| {
        let inner = &c["inner"];
        !inner.contains(':') && inner.chars().any(|ch| ch.is_ascii_alphabetic() || ch == '_')
    });
    calls > 0 && !indexes
}

#[cfg(test)]
mod tests {
    use super::innocent_line;

    #[test]
    fn lines_that_only_read_or_move_data_are_innocent() {
        for l in [
            "running += loss.item()",
            "total_loss += loss.item() * batch_size",
            "correct = torch.eq(y_true, y_pred).sum().item()",
            "correct_k = correct[:k].view(-1).float().sum(0)",
            "loss.backward()",
            "print(loss.item())",
            "return self._apply(lambda t: t.cpu())",
            "optimizer.step()",
        ] {
            assert!(innocent_line(l), "{l}");
        }
    }

    #[test]
    fn lines_that_run_a_model_a_loss_or_an_index_are_not() {
        for l in [
            "out = emb(ids.cuda())",
            "loss = criterion(logits, y)",
            "logits = model(x.to(device))",
            "x = F.relu(self.conv_layers[i](x))",
            "y = table[idx].sum()",
            "loss = F.cross_entropy(out, y).item()",
            "x = y",
        ] {
            assert!(!innocent_line(l), "{l}");
        }
    }
}
