/* host_tls.c (libhost_tls.so): a library with thread-local storage, for host_tlsload, which
 * loads copies of it under other names: each is a new TLS module of the process. */
static __thread unsigned long counter;

unsigned long host_tls_touch(void)
{
	return ++counter;
}
