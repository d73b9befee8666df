"""Gaussian moments and cumulants of trace polynomials in a random skew matrix (Wick's theorem).

Θ is a k×k skew matrix whose entries θᵢⱼ (i < j) are independent N(0, vᵢⱼ), v symmetric with
vᵢᵢ = 0, so that E[Θ_ab Θ_cd] = v_ab (δ_ac δ_bd − δ_ad δ_bc). S = diag(s) is a fixed diagonal
matrix. The random variables are polynomials in *words*: a word is tr(S Θ^m) (``marked``) or
tr(Θ^m) (``plain``; tr Θ⁰ = k). A joint cumulant κ(X₁, …, X_r) of products of centred Gaussian
letters is the sum over the Wick pairings of all letters whose pairs connect the r blocks
(Leonov & Shiryaev 1959; Malyshev 1980); r = 1 is the mean (every pairing).

Reduction to contraction patterns. Write word j of length m with index slots i₀, …, i_{m−1}; its
letters are Θ_{i_t i_{t+1}} (cyclic). Pairing letter (a, b) with letter (c, d) contributes either
v_ab δ_ac δ_bd (sign +) or −v_ab δ_ad δ_bc. Each of the 2^{pairs} choices identifies slots into
classes (vertices) and leaves one factor v_xy per pair (an edge; zero if x = y, since vₓₓ = 0) and
one factor s_x per marked slot. Summed over the free index values of the vertices this is

    Σ_{x₁..x_V} ∏_{edges} v_{x_a x_b} ∏_{vertices} s_{x_a}^{marks(a)}.

Such a pattern is a multigraph with vertex weights; isomorphic patterns have equal values, so the
patterns are reduced to a canonical form (connected components, each relabelled to its
lexicographically smallest encoding) and their rational coefficients summed exactly
(:class:`fractions.Fraction`). This is done once per expression shape and cached.

Evaluation is valid for every k. Each connected component (at most five vertices for the terms
of :mod:`symcheck.hyp0f1.asymptotic`) is compiled once, by eliminating vertices of degree ≤ 2, to
an expression of batched matrix–vector and matrix products (O(k²)–O(k³) per row; K₄, the one
remainder up to order 3, by a Numba kernel, O(k⁴)); the expressions of all components of a
pattern sum form one straight-line program in which shared sub-expressions appear once
(:class:`CompiledPatterns`, built once per pattern sum by a caller that keeps it), run once per
call for all rows.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product

import numpy as np
from numba import njit

__all__ = ["CompiledPatterns", "Pattern", "PatternSum", "cumulant_patterns", "evaluate"]

EPS = np.finfo(float).eps

#: A word: (marked, length); marked = 1 for tr(S Θ^length), 0 for tr(Θ^length).
Word = tuple[int, int]
#: A monomial: (coefficient, words) = coefficient · ∏ words.
Monomial = tuple[Fraction, tuple[Word, ...]]
#: A connected component: (n_vertices, marks per vertex, edges (a, b, multiplicity) with a < b).
Component = tuple[int, tuple[int, ...], tuple[tuple[int, int, int], ...]]
#: A pattern: sorted tuple of its connected components (an isolated vertex is a component too).
Pattern = tuple[Component, ...]
#: A sum of patterns with exact coefficients.
PatternSum = dict[Pattern, Fraction]


def _find(parent: list[int], a: int) -> int:
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


def _merge(cls: tuple[int, ...], x: int, y: int) -> tuple[int, ...]:
    """Slot classes ``cls`` with the classes of slots x and y merged."""
    cx, cy = cls[x], cls[y]
    return cls if cx == cy else tuple(cx if c == cy else c for c in cls)


def _layout(word_lists: tuple[tuple[Word, ...], ...]):
    """Slots and letters of a product of word products (one per cumulant block).

    Returns (n_slots, marks per slot, letters as (row slot, col slot), block of each letter).
    """
    marks, letters, block = [], [], []
    for b, words in enumerate(word_lists):
        for marked, m in words:
            base = len(marks)
            marks.extend([marked] + [0] * max(m - 1, 0))
            for t in range(m):
                letters.append((base + t, base + (t + 1) % m))
                block.append(b)
    return len(marks), marks, letters, block


def _connected(pairs, block, n_blocks: int) -> bool:
    parent = list(range(n_blocks))
    for a, b in pairs:
        parent[_find(parent, block[a])] = _find(parent, block[b])
    root = _find(parent, 0)
    return all(_find(parent, b) == root for b in range(n_blocks))


@lru_cache(maxsize=None)
def _raw_patterns(word_lists: tuple[tuple[Word, ...], ...]) -> dict:
    """κ of the word products ``word_lists`` (one per block) as raw patterns → signed counts.

    Depth-first over the partner and orientation of the first unpaired letter, merging slot
    classes as it goes; a branch stops as soon as a paired letter has both slots in one class
    (its factor v_xx is 0, and later merges cannot separate the slots again).
    """
    n_slots, marks, letters, block = _layout(word_lists)
    acc: dict = {}
    if len(letters) % 2:
        return acc  # odd moments of a centred Gaussian vanish
    need_connected = len(word_lists) > 1

    def leaf(cls, pairs, sign):
        if need_connected and not _connected(pairs, block, len(word_lists)):
            return
        label: dict[int, int] = {}
        for c in cls:
            label.setdefault(c, len(label))
        vmarks = [0] * len(label)
        for s in range(n_slots):
            vmarks[label[cls[s]]] += marks[s]
        edges = sorted((min(label[cls[letters[t][0]]], label[cls[letters[t][1]]]),
                        max(label[cls[letters[t][0]]], label[cls[letters[t][1]]])) for t, _ in pairs)
        key = (tuple(vmarks), tuple(edges))
        acc[key] = acc.get(key, 0) + sign

    def dfs(free, cls, pairs, sign):
        if not free:
            leaf(cls, pairs, sign)
            return
        t, rest = free[0], free[1:]
        a, b = letters[t]
        for i, u in enumerate(rest):
            c, d = letters[u]
            for flip in (False, True):
                new = _merge(_merge(cls, a, d), b, c) if flip else _merge(_merge(cls, a, c), b, d)
                if any(new[letters[e][0]] == new[letters[e][1]] for e, _ in pairs) or new[a] == new[b]:
                    continue
                dfs(rest[:i] + rest[i + 1:], new, [*pairs, (t, u)], -sign if flip else sign)

    dfs(tuple(range(len(letters))), tuple(range(n_slots)), [], 1)
    return acc


def _canonical_component(verts: list[int], marks, edges) -> Component:
    """Smallest encoding of the component on ``verts`` over the relabellings that respect invariants."""
    mult: dict[tuple[int, int], int] = {}
    for a, b in edges:
        mult[(a, b)] = mult.get((a, b), 0) + 1
    inv = {}
    for x in verts:
        inc = sorted(m for (a, b), m in mult.items() if x in (a, b))
        inv[x] = (marks[x], len(inc), tuple(inc))
    cells: dict = {}
    for x in verts:
        cells.setdefault(inv[x], []).append(x)
    order = sorted(cells)
    best = None
    for choice in _product_of_perms([cells[c] for c in order]):
        pos = {x: i for i, x in enumerate(choice)}
        enc = tuple(sorted((min(pos[a], pos[b]), max(pos[a], pos[b]), m) for (a, b), m in mult.items()))
        if best is None or enc < best:
            best = enc
    return len(verts), tuple(marks[x] for c in order for x in cells[c]), best


def _product_of_perms(groups: list[list[int]]):
    """Yield the concatenations of one permutation of each group."""
    if not groups:
        yield ()
        return
    for head in permutations(groups[0]):
        for tail in _product_of_perms(groups[1:]):
            yield head + tail


def _canonical(raw_key) -> Pattern:
    marks, edges = raw_key
    parent = list(range(len(marks)))
    for a, b in edges:
        parent[_find(parent, a)] = _find(parent, b)
    comps: dict[int, list[int]] = {}
    for x in range(len(marks)):
        comps.setdefault(_find(parent, x), []).append(x)
    out = []
    for verts in comps.values():
        vs = set(verts)
        out.append(_canonical_component(verts, marks, [e for e in edges if e[0] in vs]))
    return tuple(sorted(out))


def cumulant_patterns(blocks: tuple[tuple[Monomial, ...], ...]) -> PatternSum:
    """κ(X₁, …, X_r) of the blocks Xⱼ = Σ monomials, as a sum of canonical patterns.

    Parameters
    ----------
    blocks : tuple of tuples of monomials
        Each block is a sum of monomials ``(coefficient, ((marked, length), ...))``.

    Returns
    -------
    dict
        Canonical pattern → exact coefficient (zero coefficients removed).
    """
    out: PatternSum = {}
    for choice in product(*blocks):
        coef = Fraction(1)
        for c, _ in choice:
            coef *= c
        # κ is symmetric in its arguments: one enumeration per multiset of word products
        for key, count in _raw_patterns(tuple(sorted(words for _, words in choice))).items():
            if count:
                pat = _canonical(key)
                out[pat] = out.get(pat, 0) + count * coef
    return {p: c for p, c in out.items() if c}


# ---------------------------------------------------------------------------------------
# Evaluation: each component compiled once to an expression by variable elimination; the
# expressions of all components share sub-expressions, computed once per call.
# ---------------------------------------------------------------------------------------

def _mul(a, b):
    """Elementwise product of two vector expressions (flattened, sorted: shared when equal)."""
    if a == ("s", 0):
        return b
    if b == ("s", 0):
        return a
    fa = a[1] if a[0] == "mul" else (a,)
    fb = b[1] if b[0] == "mul" else (b,)
    return ("mul", tuple(sorted(fa + fb, key=repr)))


def _transpose(m):
    if m[0] == "v":
        return m  # v^m is symmetric
    if m[0] == "T":
        return m[1]
    if m[0] == "had":
        return ("had", tuple(sorted((_transpose(x) for x in m[1]), key=repr)))
    if m[0] == "mm":
        return ("mm", _transpose(m[3]), m[2], _transpose(m[1]))
    return ("T", m)


@lru_cache(maxsize=None)
def _compile(comp: Component):
    """Expression of Σ_x ∏ v^mult ∏ s^marks for one component, by eliminating vertices.

    A vertex of degree 1 becomes a matrix–vector product into its neighbour's weight
    (O(k²) per row); one of degree 2 becomes an edge A·diag(w)·B between its neighbours
    (O(k³)). Up to order 3 the only remainder with every degree ≥ 3 is the complete graph K₄,
    contracted by :func:`_k4_kernel` (O(k⁴)); anything else raises NotImplementedError.
    """
    n_v, marks, edges = comp
    w = {x: ("s", marks[x]) for x in range(n_v)}
    mats = {(a, b): ("v", m) for a, b, m in edges}
    alive = set(range(n_v))

    def nbrs(x):
        return sorted([b for a, b in mats if a == x] + [a for a, b in mats if b == x])

    def oriented(x, y):
        return mats[(x, y)] if (x, y) in mats else _transpose(mats[(y, x)])

    while len(alive) > 1:
        x = min(alive, key=lambda u: (len(nbrs(u)), u))
        nb = nbrs(x)
        if len(nb) == 1:
            (y,) = nb
            w[y] = _mul(w[y], ("mv", oriented(y, x), w[x]))
        elif len(nb) == 2:
            y, z = nb
            new = ("mm", oriented(y, x), w[x], oriented(x, z))
            mats[(y, z)] = ("had", tuple(sorted((mats[(y, z)], new), key=repr))) if (y, z) in mats else new
        elif len(alive) == 4 and len(mats) == 6:
            a, b, c, d = sorted(alive)
            return ("k4", tuple(w[u] for u in (a, b, c, d)),
                    tuple(oriented(p, q) for p, q in ((a, b), (a, c), (a, d), (b, c), (b, d), (c, d))))
        else:
            raise NotImplementedError(f"component {comp} does not reduce to degree <= 2 eliminations and K4")
        for y in nb:
            mats.pop((min(x, y), max(x, y)))
        alive.remove(x)
    (x,) = alive
    return ("sum", w[x])


@njit(cache=True)
def _k4_kernel(w, m, out):
    """out[z] = Σ_{abcd} w₀[a]w₁[b]w₂[c]w₃[d] M_ab M_ac M_ad M_bc M_bd M_cd per row z.

    w (4, n, k) vertex weights, m (6, n, k, k) edge matrices in the order ab, ac, ad, bc, bd, cd.
    """
    n, k = w.shape[1], w.shape[2]
    y = np.empty(k)
    for z in range(n):
        tot = 0.0
        for a in range(k):
            for b in range(k):
                t_ab = w[0, z, a] * w[1, z, b] * m[0, z, a, b]
                if t_ab == 0.0:
                    continue
                for d in range(k):
                    y[d] = w[3, z, d] * m[2, z, a, d] * m[4, z, b, d]
                acc = 0.0
                for c in range(k):
                    inner = 0.0
                    for d in range(k):
                        inner += m[5, z, c, d] * y[d]
                    acc += w[2, z, c] * m[1, z, a, c] * m[3, z, b, c] * inner
                tot += t_ab * acc
        out[z] = tot


def _program(roots) -> tuple[tuple, tuple[int, ...]]:
    """The expressions ``roots`` as one straight-line program: steps (tag, operand, argument step
    indices) in dependency order, every shared sub-expression once, and the step index of each root."""
    steps: list = []
    index: dict = {}

    def visit(e) -> int:
        if e in index:
            return index[e]
        tag = e[0]
        if tag == "s":
            step = ("s", e[1], ())
        elif tag == "v":
            step = ("v", 1, ()) if e[1] == 1 else ("vpow", 0, (visit(("v", e[1] - 1)),))
        elif tag in ("T", "sum"):
            step = (tag, 0, (visit(e[1]),))
        elif tag in ("mul", "had"):
            step = ("mul", 0, tuple(visit(f) for f in e[1]))
        elif tag == "mv":
            step = ("mv", 0, (visit(e[1]), visit(e[2])))
        elif tag == "mm":
            step = ("mm", 0, (visit(e[1]), visit(e[2]), visit(e[3])))
        else:  # k4
            step = ("k4", len(e[1]), tuple(visit(x) for x in (*e[1], *e[2])))
        steps.append(step)
        index[e] = len(steps) - 1
        return index[e]

    at = tuple(visit(r) for r in roots)
    return tuple(steps), at


def _run(steps: tuple, roots: tuple, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(n, len(roots)) values of a :func:`_program` for rows s (n, k), v (n, k, k)."""
    out: list = []
    for tag, arg, at in steps:
        if tag == "s":
            val = np.ones_like(s) if arg == 0 else s ** arg
        elif tag == "v":
            val = v
        elif tag == "vpow":  # v^m = v^(m−1)·v
            val = out[at[0]] * v
        elif tag == "T":
            val = np.swapaxes(out[at[0]], 1, 2)
        elif tag == "mul":
            val = out[at[0]]
            for j in at[1:]:
                val = val * out[j]
        elif tag == "mv":
            val = np.matmul(out[at[0]], out[at[1]][:, :, None])[:, :, 0]
        elif tag == "mm":
            val = np.matmul(out[at[0]] * out[at[1]][:, None, :], out[at[2]])
        elif tag == "sum":
            val = out[at[0]].sum(axis=1)
        else:  # k4: arg vertex weights, then the six edge matrices
            val = np.empty(s.shape[0])
            _k4_kernel(np.stack([out[j] for j in at[:arg]]),
                       np.stack([np.ascontiguousarray(out[j]) for j in at[arg:]]), val)
        out.append(val)
    return np.stack([out[j] for j in roots], axis=1)


class CompiledPatterns:
    """A pattern sum prepared for evaluation: its components compiled (:func:`_compile`) to one
    straight-line program sharing their sub-expressions, the patterns as component indices, the
    coefficients as float64 and the rounding constants of :meth:`evaluate` (all computed once).

    Parameters
    ----------
    patterns : dict
        From :func:`cumulant_patterns` (or sums of them); the empty sum is 0.
    """

    def __init__(self, patterns: PatternSum):
        comps = sorted({c for pat in patterns for c in pat})
        self.steps, self.roots = _program([_compile(c) for c in comps])
        index = {c: i for i, c in enumerate(comps)}
        width = max((len(p) for p in patterns), default=0)
        self.idx = np.full((len(patterns), width), len(comps))
        for r, pat in enumerate(patterns):
            self.idx[r, : len(pat)] = [index[c] for c in pat]
        self.coef = np.array([float(c) for c in patterns.values()])
        self.n_vert = max((sum(c[0] for c in pat) for pat in patterns), default=0)
        # +1: the coefficient (a rounded Fraction) is one more factor
        self.n_fac = 1 + max((sum(len(c[2]) + sum(1 for m in c[1] if m) for c in pat) for pat in patterns), default=0)
        self.n_patterns = len(patterns)

    def evaluate(self, s: np.ndarray, v: np.ndarray, rounding: bool = True):
        """Value of the pattern sum for each row, and (with ``rounding``) its rounding bound, else None.

        See :func:`evaluate`.
        """
        if not self.n_patterns:
            z = np.zeros(s.shape[0])
            return z, (z if rounding else None)
        vals = _run(self.steps, self.roots, s, v)
        ones = np.ones((s.shape[0], 1))
        value = np.prod(np.hstack([vals, ones])[:, self.idx], axis=2) @ self.coef
        if not rounding:
            return value, None
        # with s, v ≥ 0 every elementary product is ≥ 0: the absolute sums are the values themselves
        absvals = vals if (np.all(s >= 0) and np.all(v >= 0)) else _run(self.steps, self.roots, np.abs(s), np.abs(v))
        bound = np.prod(np.hstack([absvals, ones])[:, self.idx], axis=2) @ np.abs(self.coef)
        gamma = (s.shape[1] * self.n_vert + self.n_fac + self.n_patterns) * EPS
        return value, gamma * bound


def evaluate(patterns: PatternSum, s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value of a pattern sum for each row, and a bound on its float64 rounding error.

    Parameters
    ----------
    patterns : dict
        From :func:`cumulant_patterns` (or sums of them).
    s : ndarray, shape (n, k)
        Diagonal of S per row.
    v : ndarray, shape (n, k, k)
        Symmetric variances with zero diagonal per row.

    Returns
    -------
    value : ndarray, shape (n,)
    rounding : ndarray, shape (n,)
        ``γ·A`` with A the same sum evaluated with |coefficients|, |s|, |v| (a bound on the sum
        of the absolute values of all elementary products) and γ = (k·V + F + P)·eps, V the
        largest number of vertices (summations of k terms per product), F the largest number
        of factors, P the number of patterns: the standard bound for sums of products in
        floating point (Higham 2002, §3.1), since every contraction step sums k terms.

    Notes
    -----
    Prepares the patterns on every call; a caller evaluating the same patterns often keeps a
    :class:`CompiledPatterns` instead.
    """
    return CompiledPatterns(patterns).evaluate(s, v)
