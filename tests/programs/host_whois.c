/* host_whois.c: for each name given, the file of the definition this process calls (the
 * first in the symbol search order: a preloaded library's, else libc's), one "name file" line,
 * the file's base name. Checks which of gpuscope's libraries interpose what. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		void *f = dlsym(RTLD_DEFAULT, argv[i]);
		Dl_info di;
		const char *file = "none";
		if (f && dladdr(f, &di) && di.dli_fname) {
			const char *slash = strrchr(di.dli_fname, '/');
			file = slash ? slash + 1 : di.dli_fname;
		}
		printf("%s %s\n", argv[i], file);
	}
	return 0;
}
