/* replay.c - run a fuzz target over corpus files without libFuzzer, so
 * `meson test` replays every corpus with gcc and the sanitizers. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	size_t got = b ? fread(b, 1, (size_t)(n > 0 ? n : 0), f) : 0;
	fclose(f);
	LLVMFuzzerTestOneInput(b, got);
	free(b);
	return 1;
}

static int
run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p;
		if (asprintf(&p, "%s/%s", path, e->d_name) < 0)
			break;
		n += run_path(p);
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

int
main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++)
		n += run_path(argv[i]);
	printf("replayed %d inputs\n", n);
	return n > 0 ? 0 : 1;
}
