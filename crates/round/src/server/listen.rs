//! The server's own accept loop, so that no number of clients, idle or slow,
//! takes from the recorders what they need: connections are capped well below the
//! descriptors the process may open (more are closed as soon as accepted), a
//! request's head must come within a time (also what a kept-alive connection may
//! wait idle), and a response nobody reads for a while ends its connection.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
pub(super) use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

/// Descriptors kept for the recorders whatever the limit (videos, cameras,
/// records written, the model), before the server's share is taken.
pub(crate) const RESERVED_FDS: u64 = 512;
/// The most connections served at once, however many descriptors there are.
pub(crate) const MAX_CONNECTIONS: usize = 1024;

/// What the server allows its clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once; more are closed as soon as they are accepted.
    pub max_connections: usize,
    /// A request's head must arrive within this; a kept-alive connection waits
    /// this long for its next request.
    pub header_timeout: Duration,
    /// A response that cannot be written for this long (its client stopped
    /// reading) ends its connection.
    pub write_timeout: Duration,
    /// An arbiter action's body must arrive within this.
    pub body_timeout: Duration,
}

impl Limits {
    /// The limits for a process that may open `nofile` descriptors: connections
    /// take at most half of what is left after `RESERVED_FDS`, and no more than
    /// `MAX_CONNECTIONS`.
    pub fn for_fd_limit(nofile: u64) -> Limits {
        let share = nofile.saturating_sub(RESERVED_FDS) / 2;
        Limits {
            max_connections: (share.min(MAX_CONNECTIONS as u64) as usize).max(8),
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(10),
        }
    }

    /// The limits for this process's soft `RLIMIT_NOFILE` as it stands (`start`
    /// raises it to the hard limit first).
    pub(crate) fn for_this_process() -> Limits {
        Limits::for_fd_limit(soft_fd_limit().unwrap_or(1024))
    }
}

/// The soft limit on open descriptors.
fn soft_fd_limit() -> Option<u64> {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only the struct it is given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) } == 0;
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
    ok.then_some(l.rlim_cur as u64)
}

/// Accepts connections for ever, serving at most `limits.max_connections` at once
/// (a permit of `slots` each).
pub(super) async fn serve(
    listener: std::net::TcpListener,
    router: Router,
    limits: Limits,
    slots: Arc<Semaphore>,
) {
    // Accepted as plain sockets: one refused is closed without ever being
    // registered with the runtime (two system calls in all).
    // SAFETY: the AsyncFd owns the listener, so its descriptor stays open and the
    // same for as long as the AsyncFd lives.
    let Ok(listener) = (unsafe { AsyncFd::register(listener) }) else {
        return;
    };
    loop {
        let Ok(mut ready) = listener.readable().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let mut refused = false;
        loop {
            let stream = match ready.try_io(|l| l.get_ref().accept()) {
                Ok(Ok((s, _))) => s,
                // None waiting: wait for readiness again.
                Err(_) => {
                    if refused {
                        // Full: those that come meanwhile wait in the backlog and
                        // are taken together, instead of a wake each.
                        tokio::time::sleep(REFUSED_REST).await;
                    }
                    break;
                }
                // Out of descriptors (or the like): accepting again at once
                // would spin, and waiting lets connections end and give theirs
                // back.
                Ok(Err(_)) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    break;
                }
            };
            let Ok(slot) = slots.clone().try_acquire_owned() else {
                // Full: closed now, its descriptor given back at once.
                refuse(stream);
                refused = true;
                continue;
            };
            bound_send_buffer(&stream);
            let stream = match stream
                .set_nonblocking(true)
                .and_then(|()| TcpStream::from_std(stream))
            {
                Ok(s) => s,
                Err(_) => continue,
            };
            let _ = stream.set_nodelay(true);
            let service = TowerToHyperService::new(router.clone());
            tokio::spawn(async move {
                let io = TokioIo::new(Unstalled::new(stream, limits.write_timeout));
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .serve_connection(io, service)
                    .await;
                drop(slot);
            });
        }
    }
}

/// How long the listener rests after refusing connections at the cap: a flood of
/// them wakes it at most a hundred times a second, however fast they come, and a
/// page's connection waits at most this when a slot frees meanwhile.
const REFUSED_REST: Duration = Duration::from_millis(10);

/// Closes a connection refused at the cap with a reset: no goodbye exchanged and
/// nothing kept of it afterwards (no TIME_WAIT), the least work for the kernel.
fn refuse(stream: std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: setsockopt reads the struct given, on a socket this function owns.
    // Refused, the socket is closed the usual way.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    drop(stream);
}

/// What the kernel keeps of a connection's unsent data. Left to itself it lets a
/// buffer grow to megabytes for a client that never reads, every event copied
/// into it; a page needs a few kilobytes a second.
const SEND_BUFFER: libc::c_int = 64 * 1024;

fn bound_send_buffer(stream: &std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    // SAFETY: setsockopt reads the int given, on a socket this function borrows.
    // Refused, the kernel's default stays, and the write timeout still ends a
    // connection nobody reads.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&SEND_BUFFER as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// A connection whose writes fail once one has waited `limit` for its client to
/// read (an event stream nobody reads would otherwise hold its descriptor and
/// buffers for ever).
struct Unstalled {
    inner: TcpStream,
    limit: Duration,
    /// Running while a write waits.
    stall: Option<Pin<Box<Sleep>>>,
    stalled: bool,
}

impl Unstalled {
    fn new(inner: TcpStream, limit: Duration) -> Unstalled {
        Unstalled {
            inner,
            limit,
            stall: None,
            stalled: false,
        }
    }

    /// After a write came back pending: an error once it has waited too long.
    fn waited<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let deadline = Instant::now() + self.limit;
        let sleep = self
            .stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if !self.stalled {
            self.stalled = true;
            sleep.as_mut().reset(deadline);
        }
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn after<T>(&mut self, cx: &mut Context<'_>, p: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match p {
            Poll::Pending => self.waited(cx),
            done => {
                self.stalled = false;
                done
            }
        }
    }
}

impl AsyncRead for Unstalled {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Unstalled {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.after(cx, p)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.after(cx, p)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.inner).poll_flush(cx);
        self.after(cx, p)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.after(cx, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_leave_the_recorders_their_descriptors() {
        // The usual soft limit: a quarter of it for connections.
        assert_eq!(Limits::for_fd_limit(1024).max_connections, 256);
        // Raised to a typical hard limit: capped.
        assert_eq!(
            Limits::for_fd_limit(524_288).max_connections,
            MAX_CONNECTIONS
        );
        for nofile in [0, 64, 600, 1024, 4096, 20_000, u64::MAX] {
            let l = Limits::for_fd_limit(nofile);
            assert!(l.max_connections >= 8, "{nofile}: {l:?}");
            if nofile >= 1024 {
                assert!(
                    (l.max_connections as u64) <= (nofile - RESERVED_FDS) / 2,
                    "{nofile}: {l:?}"
                );
            }
        }
    }
}
