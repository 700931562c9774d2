// The C library's malloc settings the launcher gives its processes on Linux. glibc serves every block
// over 32 MB with a fresh mmap and unmaps it when freed, and XLA's CPU client allocates each execution's
// temporaries as one such block (312 MB for llama-small's bf16-mixed step): every step then faults in
// about 80,000 new 4 KiB pages, and the faults and their zeroing took about a sixth of the step. glibc's
// tunable glibc.malloc.hugetlb=1 asks for transparent huge pages on those mappings (madvise), 512 times
// fewer faults: llama-small's bf16-mixed step on XLA:CPU ran 1.2x faster with it, at the same peak memory
// (README, "Executors", "Host memory on Linux"). Tunables are read when a process starts, so only a launcher can set them, as
// Intel's CPU launcher for PyTorch (torch.backends.xeon.run_cpu) sets its processes' allocator.

/** The tunable the launcher adds. */
const HUGE_PAGE_MALLOC_TUNABLE = "glibc.malloc.hugetlb=1";

/**
 * GLIBC_TUNABLES for a launched process: the given value with glibc.malloc.hugetlb=1 appended, on Linux,
 * unless the value already sets glibc.malloc.hugetlb (the user's choice stands). Elsewhere the value as
 * given (other C libraries ignore the variable; macOS and Windows have no glibc).
 */
export function launchedGlibcTunables(current: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== "linux") return current;
  if (current && /(^|:)glibc\.malloc\.hugetlb=/.test(current)) return current;
  return current ? `${current}:${HUGE_PAGE_MALLOC_TUNABLE}` : HUGE_PAGE_MALLOC_TUNABLE;
}
