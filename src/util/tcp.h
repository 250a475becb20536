/*
 * tcp.h: a TCP client connection, retried. Each failed try is reported
 * through a callback (one message per try), so that the caller decides where
 * messages go.
 */
#ifndef SCORCH_TCP_H
#define SCORCH_TCP_H

/* Connect to host:port (a name or an address, any family), trying again up
 * to retries more times with delays that double from 2 ms (10 retries: about
 * 2 s in all). fail, when not NULL, gets each try's error. Returns the socket
 * (close-on-exec) or -1. */
int tcp_connect(const char *host, const char *port, int retries,
		void (*fail)(void *ctx, const char *msg), void *ctx);

#endif
