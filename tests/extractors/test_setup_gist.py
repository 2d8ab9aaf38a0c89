"""A step worded only by a name gets what its cited lines do: the loops they run in, the class
they pick by an option, the objects they make, the model, loss and optimizer they work, the
repository's calls and what they return. Built with git in tmp_path."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import committed_index

from extractors.agent.gist import Gists, thin
from extractors.agent.steps import Step, StepTracer
from extractors.repo import RepoSearch

EXP = '''"""Train and test a forecaster."""
import torch
from torch import nn, optim

from datasets import load_dataset
from utils.tools import EarlyStopping, adjust_learning_rate


class Exp:
    def __init__(self, args):
        self.args = args
        self.model = build(args)

    def _criterion(self):
        if self.args.loss == "mae":
            criterion = nn.L1Loss()
        elif self.args.smooth:
            criterion = nn.SmoothL1Loss(beta=self.args.beta)
        else:
            criterion = nn.MSELoss()
        return criterion

    def vali(self, loader, criterion):
        total = []
        for batch_x, batch_y in loader:
            total.append(criterion(self.model(batch_x), batch_y).item())
        return sum(total) / len(total)

    def train(self, train_loader, vali_loader):
        model_optim = optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        criterion = self._criterion()
        early_stopping = EarlyStopping(patience=self.args.patience, verbose=True)
        for epoch in range(self.args.train_epochs):
            for i, (batch_x, batch_y) in enumerate(train_loader):
                model_optim.zero_grad()
                outputs = self.model(batch_x)
                loss = criterion(outputs, batch_y)
                loss.backward()
                model_optim.step()
            vali_loss = self.vali(vali_loader, criterion)
            early_stopping(vali_loss, self.model)
            adjust_learning_rate(model_optim, epoch + 1, self.args)
        torch.save(self.model.state_dict(), "checkpoint.pth")
        return self.model

    def _split(self, pool):
        """Split the pool into training and validation samples."""
        return pool[:-1], pool[-1:]

    def run(self, pool):
        train, val = self._split(pool)
        return train, val

    def _prepare(self):
        for part in self.parts:
            self.model(part)

    def judge(self, rounds):
        self._prepare()
        history = []
        history.append(self.args)
        for r in range(rounds):
            history.append(self.model(r))
        return history

    def explore(self, pool):
        best = Stage(self).run(pool)
        stage = Stage(self)
        again = stage.run(best)
        return again

    def test(self, test_loader):
        """Forecast the test split and report MSE and MAE."""
        preds = [self.model(x) for x, _ in test_loader]
        return preds


class Stage:
    def __init__(self, exp):
        self.exp = exp

    def run(self, pool):
        """Evolve the prompts over the pool, round by round."""
        return [self.exp.model(x) for x in pool]


class Client:
    def __init__(self, name):
        self.name = name

    def inference(self, history):
        """Answer the conversation so far."""
        raise NotImplementedError()

    async def reset(self):
        raise NotImplementedError

    def _log(self, text):
        raise NotImplementedError


class Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.attention = nn.MultiheadAttention(d_model, heads)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x):
        out, _ = self.attention(x, x, x)
        gated = self.gate(out)
        return self.norm(x + gated), out

    def gate(self, x):
        return x


def build(args):
    return Block(args.d_model, args.heads)


def build_net(args):
    head = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).to(args.device)
    net = Block(args.d_model, args.heads).cuda()
    return head, net


def load_split(name):
    rows = load_dataset("org/bench-hard", name)
    return rows


def period(x, k=2):
    xf = torch.fft.rfft(x, dim=1)
    _, top = torch.topk(xf.abs().mean(0), k)
    return top
'''

TOOLS = '''"""Training helpers."""


class EarlyStopping:
    def __init__(self, patience=7, verbose=False):
        self.patience = patience

    def __call__(self, val_loss, model):
        return val_loss


def adjust_learning_rate(optimizer, epoch, args):
    return optimizer
'''


def _gists(tmp_path: Path) -> tuple[Gists, list[str]]:
    files = {"exp/exp_main.py": EXP, "utils/__init__.py": "", "utils/tools.py": TOOLS}
    index = committed_index(tmp_path, files)
    return Gists(StepTracer(index, RepoSearch(tmp_path, index))), EXP.splitlines()


def _span(lines: list[str], first: str, last: str) -> tuple[int, int]:
    start = next(i for i, x in enumerate(lines, 1) if x.strip().startswith(first))
    end = next(i for i, x in enumerate(lines, 1) if i > start and x.strip().startswith(last))
    return start, end


def test_a_training_method_is_worded_by_its_loops_model_loss_and_optimizer(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def train(", "return self.model")
    [step] = gists.worded([Step("Train (Exp.train)", "exp/exp_main.py", start, end)])
    # what is made before the epochs, then what each batch does
    assert step.action == (
        "Train (Exp.train): makes optim.Adam (lr), EarlyStopping; calls self._criterion; for "
        "each epoch, over train_loader: runs self.model, computes the loss with criterion, "
        "backpropagates, steps model_optim"
    )
    # past the words a gist may take: the save after the loop, then the loop's last calls
    assert "torch.save" not in step.action and "self.vali" not in step.action


def test_a_range_inside_a_loop_says_the_loops_it_runs_in(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "model_optim.zero_grad()", "loss.backward()")
    [step] = gists.worded([Step("Compute the loss", "exp/exp_main.py", start, end)])
    assert step.action == (
        "Compute the loss: for each epoch, over train_loader: runs self.model; "
        "computes the loss with criterion; backpropagates"
    )


def test_a_choice_of_class_by_an_option_names_the_classes_and_the_options(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def _criterion(", "return criterion")
    [step] = gists.worded([Step("Call _criterion", "exp/exp_main.py", start, end)])
    assert step.action == (
        "Call _criterion: picks nn.L1Loss, nn.SmoothL1Loss or nn.MSELoss "
        "by self.args.loss and self.args.smooth; returns criterion"
    )


def test_a_class_says_what_it_holds_and_what_its_forward_does(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "class Block(", "def gate(")
    end += 1  # through `gate`'s one line
    [step] = gists.worded([Step("Compute Block's forward pass", "exp/exp_main.py", start, end)])
    assert step.action == (
        "Compute Block's forward pass: holds nn.MultiheadAttention and nn.LayerNorm; "
        "its forward calls self.gate"
    )


def test_a_docstring_is_the_gist_and_a_worded_step_is_kept(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def test(", "return preds")
    long = Step("Run the model over the validation split and average the loss", "x.py", 1, 2)
    doc, kept = gists.worded([Step("Evaluate (Exp.test)", "exp/exp_main.py", start, end), long])
    assert doc.action == "Evaluate (Exp.test): forecast the test split and report MSE and MAE"
    assert kept == long


def test_what_the_wording_names_and_generic_returns_are_no_news(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def vali(", "return sum(total)")
    [step] = gists.worded([Step("Call vali", "exp/exp_main.py", start, end)])
    # a loss by name, the model, no repetition of `vali`, no "returns" of an expression
    assert (
        step.action == "Call vali: over loader: runs self.model, computes the loss with criterion"
    )
    start, end = _span(lines, "def build(", "return Block(")
    [bare] = gists.worded([Step("Build", "exp/exp_main.py", start, end)])
    assert bare.action == "Build: makes Block"  # the object it returns


def test_thin_is_a_name_only_wording():
    assert thin("Train (Exp_Main.train)")
    assert thin("Call analyze_output")
    assert not thin("Set the data and horizons: root_path, data_path")
    assert not thin("Create the AdamW optimizer with the learning rate and weight decay")


def test_a_line_calling_what_the_step_names_says_what_that_does(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    line = next(i for i, x in enumerate(lines, 1) if "= self._split(pool)" in x)
    [step] = gists.worded([Step("Call self._split (in run)", "exp/exp_main.py", line, line)])
    assert step.action == (
        "Call self._split (in run): in Exp._split, split the pool into training and validation "
        "samples"
    )


def test_a_function_doing_a_librarys_work_names_the_library_calls(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def period(", "return top")
    [step] = gists.worded([Step("Implement period", "exp/exp_main.py", start, end)])
    # the calls that do the work, not the tensor plumbing (`abs`, `mean`) around them
    assert step.action == "Implement period: uses torch.fft.rfft and torch.topk; returns top"


def test_a_called_functions_own_work_is_said_as_done_in_its_definition(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    line = next(i for i, x in enumerate(lines, 1) if x.strip() == "self._prepare()")
    [step] = gists.worded([Step("Call self._prepare (in judge)", "exp/exp_main.py", line, line)])
    assert step.action == (
        "Call self._prepare (in judge): in Exp._prepare, over self.parts: runs self.model"
    )


def test_a_loop_leads_only_where_it_is_most_of_the_lines(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def judge(", "return history")
    [step] = gists.worded([Step("Judge (Exp.judge)", "exp/exp_main.py", start, end)])
    # `_prepare` runs once before the rounds: no "for each round" before it
    assert step.action == "Judge (Exp.judge): runs self.model; calls self._prepare; returns history"


def test_a_method_of_an_object_the_lines_make_is_said_by_its_class(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    said = "Run (in explore): in Stage.run, evolve the prompts over the pool, round by round"
    for needle in ("best = Stage(self).run(pool)", "again = stage.run(best)"):
        line = next(i for i, x in enumerate(lines, 1) if needle in x)
        [step] = gists.worded([Step("Run (in explore)", "exp/exp_main.py", line, line)])
        assert step.action == said, needle


def test_an_object_made_and_moved_is_made_and_a_named_calls_literal_is_said(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "def build_net(", "return head, net")
    [step] = gists.worded([Step("Build net", "exp/exp_main.py", start, end)])
    # `.to(...)` and `.cuda()` move what the classes make; a Sequential's parts are its settings
    assert step.action == (
        "Build net: makes nn.Sequential (nn.Linear, nn.ReLU), Block; returns head and net"
    )
    line = next(i for i, x in enumerate(lines, 1) if "rows = load_dataset(" in x)
    [load] = gists.worded([Step("Load dataset into rows", "exp/exp_main.py", line, line)])
    assert load.action == "Load dataset into rows: with 'org/bench-hard', name"


def test_an_interface_says_what_it_leaves_to_its_subclasses(tmp_path: Path):
    gists, lines = _gists(tmp_path)
    start, end = _span(lines, "class Client:", "def _log(")
    end += 1
    [step] = gists.worded([Step("Implement the Client class", "exp/exp_main.py", start, end)])
    assert step.action == (
        "Implement the Client class: declares inference and reset for subclasses to implement"
    )
