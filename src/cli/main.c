/* main.c - placeholder CLI. */
#include <stdio.h>
#include "weightscan.h"
int
main(void)
{
	puts("weightscan " WS_VERSION);
	return 0;
}
