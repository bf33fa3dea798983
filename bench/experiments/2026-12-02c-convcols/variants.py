"""Run 1's convolve_cols PTX variants from `bench --ptx DIR` (main 4f32cb3): checked, unchecked,
fastret (the checked copy replaced by `ret`: the fast copy alone in the function) and outlined
(the checked copy moved into a .func the kernel calls). Usage: python3 variants.py DIR OUT;
then `python3 time_cols.py OUT` on the GPU host (needs conv.cubin: nvcc -cubin -arch=sm_90 -O3
bench/cuda/convolution.cu). Labels ($L__BB1_8 = the checked copy's first block) are those of
that build: check them against a newer PTX before reuse."""
import os, sys
src_dir, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
src = open(f"{src_dir}/convolve_cols.ptx").read()
open(f"{out}/cols.checked.ptx", "w").write(src)
open(f"{out}/cols.unchecked.ptx", "w").write(open(f"{src_dir}/convolve_cols_unchecked.ptx").read())
i, j = src.index("$L__BB1_8:"), src.index("$L__tmp1:")
fastret = src[:i] + src[j:]
fastret = fastret.replace("\t@%p1 bra \t$L__BB1_8;\n", "\t@%p1 bra \t$L__BB1_X;\n").replace(
    "\tret;\n$L__tmp1:", "$L__BB1_X:\n\tret;\n$L__tmp1:")
open(f"{out}/cols.fastret.ptx", "w").write(fastret)
slow = src[i:j]
for p in ["%rd27, [convolve_cols_param_7]", "%rd26, [convolve_cols_param_3]", "%rd24, [convolve_cols_param_1]"]:
    slow = slow.replace(f"ld.param.b64 \t{p};", "")
call = """$L__SLOW:
\t{
\t.param .b64 q0; .param .b64 q1; .param .b64 q2; .param .b64 q3; .param .b32 q4; .param .b32 q5; .param .b64 q7;
\tld.param.b64 %rd24, [convolve_cols_param_1];
\tld.param.b64 %rd26, [convolve_cols_param_3];
\tld.param.b64 %rd27, [convolve_cols_param_7];
\tst.param.b64 [q0], %rd23; st.param.b64 [q1], %rd24; st.param.b64 [q2], %rd25; st.param.b64 [q3], %rd26;
\tst.param.b32 [q4], %r6; st.param.b32 [q5], %r7; st.param.b64 [q7], %rd27;
\tcall.uni __cuprum_checked, (q0, q1, q2, q3, q4, q5, q7);
\t}
\texit;
"""
k = (src[:i] + call + src[j:]).replace("@%p1 bra \t$L__BB1_8;", "@%p1 bra \t$L__SLOW;")
func = """.func __cuprum_checked(.param .b64 f0, .param .b64 f1, .param .b64 f2, .param .b64 f3, .param .b32 f4, .param .b32 f5, .param .b64 f7)
.noreturn
{
\t.reg .pred \t%p<19>;
\t.reg .b32 \t%r<130>;
\t.reg .b64 \t%rd<98>;
\tld.param.b64 %rd23, [f0]; ld.param.b64 %rd24, [f1]; ld.param.b64 %rd25, [f2]; ld.param.b64 %rd26, [f3];
\tld.param.b32 %r6, [f4]; ld.param.b32 %r7, [f5]; ld.param.b64 %rd27, [f7];
""" + slow.replace("$L__BB1_", "$L__BBF_") + "}\n"
decl = "\t.shared .align 16 .b8 __cuprum_shared0[5184];\n"
k = k.replace(decl, "")
e = k.index("\t// .globl\tconvolve_cols")
k = k[:e] + ".shared .align 16 .b8 __cuprum_shared0[5184];\n" + func + k[e:]
open(f"{out}/cols.outlined.ptx", "w").write(k)
