// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: run in a guest under the insn-count plugin, cut the
 * instruction count into windows. Executes the marker no-op the plugin
 * looks for (MARK in insn-count.c) once; elsewhere it does nothing.
 */
int main(void)
{
	asm volatile("nopl 0x4d485442(%%rax,%%rax,1)" ::: "memory");
	return 0;
}
