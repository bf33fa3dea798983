"""Variants of the checked bench kernels' PTX, to time what the panic path costs.

Usage: `bench --ptx DIR` (writes each kernel's PTX), then
`python3 ptx_variants.py DIR OUT`; OUT gets, per kernel, `checked` and `unchecked` (as built),
`noreport` (every call of the panic function removed: a failed check is a bare `exit`; wrong
semantics, an upper bound for any cheaper panic path) and `inline` (the panic function's body
copied into each failing block instead of called). Hand-edited variants (`NAME.hoist.ptx`) can
be added to OUT; `time_ptx.py OUT` times them all on the GPU host (CuPy, CUDA events, same
data, interleaved, median). bench/NOTES.md §7 has what they showed.
"""
import re, sys, os
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
K = ["transpose", "sgemm", "softmax", "jacobi", "black_scholes"]
CALL = re.compile(r"\t\{ // callseq (\d+), 0\n(.*?)\t\} // callseq \1\n", re.S)
def noreport(ptx):
    return CALL.sub("", ptx)
def inline(ptx):
    n = [0]
    def rep(m):
        body = m.group(2)
        p = {}
        for mm in re.finditer(r"st\.param\.b(?:64|32)\s+\[param(\d)\], ([^;]+);", body):
            p[int(mm.group(1))] = mm.group(2).strip()
        n[0] += 1
        k = n[0]
        return f"""\t{{
\t.reg .pred %qp{k}; .reg .b32 %qa{k}, %qb{k}; .reg .b64 %qr{k};
\tatom.relaxed.sys.global.cas.b32 %qa{k}, [{p[0]}], 0, 1;
\tsetp.ne.b32 %qp{k}, %qa{k}, 0;
\t@%qp{k} exit;
\tld.global.b64 %qr{k}, [{p[0]}+8];
\tst.volatile.global.b32 [%qr{k}+4], -1010510098;
\tst.volatile.global.b32 [%qr{k}+8], {p[1]};
\tst.volatile.global.b64 [%qr{k}+16], {p[2]};
\tst.volatile.global.b64 [%qr{k}+24], {p[3]};
\tmov.u32 %qb{k}, %ctaid.x; st.volatile.global.b32 [%qr{k}+32], %qb{k};
\tmov.u32 %qb{k}, %tid.x; st.volatile.global.b32 [%qr{k}+44], %qb{k};
\tmov.u32 %qb{k}, %ctaid.y; st.volatile.global.b32 [%qr{k}+36], %qb{k};
\tmov.u32 %qb{k}, %tid.y; st.volatile.global.b32 [%qr{k}+48], %qb{k};
\tmov.u32 %qb{k}, %ctaid.z; st.volatile.global.b32 [%qr{k}+40], %qb{k};
\tmov.u32 %qb{k}, %tid.z; st.volatile.global.b32 [%qr{k}+52], %qb{k};
\tfence.sc.sys;
\tst.volatile.global.b32 [%qr{k}], 2;
\t}}
"""
    return CALL.sub(rep, ptx)
for k in K:
    a = open(f"{src}/{k}.ptx").read()
    b = open(f"{src}/{k}_unchecked.ptx").read()
    open(f"{out}/{k}.checked.ptx", "w").write(a)
    open(f"{out}/{k}.unchecked.ptx", "w").write(b)
    open(f"{out}/{k}.noreport.ptx", "w").write(noreport(a))
    open(f"{out}/{k}.inline.ptx", "w").write(inline(a))
