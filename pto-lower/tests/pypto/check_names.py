"""Reads PyPTO source on stdin: it must parse, and every name a function reads must be
bound before (a parameter, an earlier assignment or loop target, or `pl` / a builtin)."""
import ast
import builtins
import sys


class Scope(ast.NodeVisitor):
    def __init__(self, params):
        self.bound = set(params) | {"pl"} | set(dir(builtins))
        self.errors = []

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id not in self.bound:
            self.errors.append(f"line {node.lineno}: `{node.id}` read before it is bound")
        elif isinstance(node.ctx, ast.Store):
            self.bound.add(node.id)

    def visit_Assign(self, node):
        self.visit(node.value)
        for t in node.targets:
            self.visit(t)

    def visit_AnnAssign(self, node):
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node):
        self.visit(node.iter)
        self.visit(node.target)
        for s in node.body + node.orelse:
            self.visit(s)


tree = ast.parse(sys.stdin.read())
errors = []
for node in ast.walk(tree):
    if isinstance(node, ast.FunctionDef):
        scope = Scope(a.arg for a in node.args.args)
        for s in node.body:
            scope.visit(s)
        errors += [f"{node.name}: {e}" for e in scope.errors]
if errors:
    print("\n".join(errors))
    sys.exit(1)
