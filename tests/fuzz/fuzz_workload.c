/* fuzz_workload: libFuzzer target for the workload loader. Each input is a workload file
 * (written to a memfd, so the loader's own checks on file type and size run as they do
 * for a user's file), then validated and planned for 4 ranks: the whole pure path that
 * `gpufeed plan` takes. Any crash, sanitizer report, leak or hang is a finding. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/model.h"
#include "model/plan.h"
#include "model/workload.h"
#include "model/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gf_workload w; /* large: keep it off the fuzzer's stack */
	struct gf_plan p;
	char path[64], err[1024];
	int fd = memfd_create("workload", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	gf_workload_defaults(&w);
	if (!gf_yaml_load(path, &w, err, sizeof(err)) && !gf_workload_validate(&w, err, sizeof(err)))
		(void)gf_plan_build(&w, 4, &p, err, sizeof(err));
	close(fd);
	return 0;
}
