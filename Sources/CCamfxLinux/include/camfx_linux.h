#ifndef CAMFX_LINUX_H
#define CAMFX_LINUX_H

// Linux calls Swift cannot make itself: syscall(2) is C-variadic, and Swift has no
// compiler-only fence (atomic_signal_fence).

/// Registers the process for process-wide memory barriers (membarrier(2),
/// MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED). Returns 0, or -1 when the kernel (or a
/// seccomp filter) refuses.
int camfx_membarrier_register(void);

/// Makes every running thread of the process execute a full memory barrier
/// (MEMBARRIER_CMD_PRIVATE_EXPEDITED). Returns 0, or -1 on failure.
int camfx_membarrier(void);

/// Keeps the compiler from moving memory accesses across this point; emits nothing.
static inline void camfx_compiler_barrier(void) { __asm__ __volatile__("" ::: "memory"); }

#endif
