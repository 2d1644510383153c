/* host_exitinit: linked with libhost_exitinit.so, whose constructor prints "constructor" each
 * time it runs and whose destructor takes 400 ms; prints "loaded" and returns from main at
 * once, so that the library's destructor runs at exit while the collector's threads are still
 * at work (the unwind-table thread's first look at the loaded objects comes 50 ms after
 * start). The constructor runs once, unless something at exit loads the library again. */
#include <stdio.h>

int main(void)
{
	printf("loaded\n");
	return 0;
}
