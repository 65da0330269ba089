/*
 * floor.c - the least a header-only count of a checkpoint folder can cost:
 * open, stat and read the first 16 KiB of every file in it, nothing else.
 * tools/bench times weightscan against it on the same folder in the same
 * run (the floor weightscan is measured against, not a tool people use).
 *
 *   floor DIR
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	static char buf[16384];
	unsigned long long bytes = 0;
	if (argc != 2) {
		fprintf(stderr, "usage: floor DIR\n");
		return 2;
	}
	int dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		if (de->d_name[0] == '.')
			continue;
		int fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC);
		struct stat sb;
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
			ssize_t n = read(fd, buf, sizeof buf);
			if (n > 0)
				bytes += (unsigned long long)n;
		}
		close(fd);
	}
	closedir(d);
	printf("%llu\n", bytes);
	return 0;
}
