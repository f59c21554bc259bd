#include "camfx_linux.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

int camfx_membarrier_register(void) {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}

int camfx_membarrier(void) {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}
