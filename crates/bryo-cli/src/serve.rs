//! `bryo serve`: a self-hosted MOSS server, and its user administration.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use bryo_serve::{Config, Limits, Server, Store};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<UserCommand>,

    #[command(flatten)]
    data: DataArg,

    /// Address of the web UI, the API and the result pages.
    #[arg(
        long = "http",
        value_name = "ADDR:PORT",
        default_value = "127.0.0.1:8080"
    )]
    http: SocketAddr,

    /// Address of the MOSS protocol (MOSS's own port is 7690).
    #[arg(
        long = "moss",
        value_name = "ADDR:PORT",
        default_value = "127.0.0.1:7690"
    )]
    moss: SocketAddr,

    /// The URL results are reached by, e.g. https://moss.example.edu (a
    /// server behind a proxy does not know its own name) [default:
    /// http:// and the --http address].
    #[arg(long = "public-url", value_name = "URL")]
    public_url: Option<String>,

    /// Comparisons run at once [default: one per core].
    #[arg(long = "workers", value_name = "N")]
    workers: Option<usize>,

    /// Jobs queued or running at once; a query beyond it is refused with
    /// an `Error:` line.
    #[arg(long = "queue", value_name = "N", default_value_t = 64)]
    queue: usize,

    /// Largest file of a job, in bytes.
    #[arg(long = "max-file-bytes", value_name = "BYTES", default_value_t = Limits::default().max_file_bytes)]
    max_file_bytes: u64,

    /// Largest total of a job's files, in bytes.
    #[arg(long = "max-job-bytes", value_name = "BYTES", default_value_t = Limits::default().max_job_bytes)]
    max_job_bytes: u64,

    /// Most files in one job (base files included).
    #[arg(long = "max-files", value_name = "N", default_value_t = Limits::default().max_files)]
    max_files: usize,

    /// Longest protocol command line, in bytes.
    #[arg(long = "max-line-bytes", value_name = "BYTES", default_value_t = Limits::default().max_line_bytes)]
    max_line_bytes: usize,

    /// A protocol client silent for this many seconds is answered with an
    /// `Error:` line and disconnected.
    #[arg(long = "read-timeout", value_name = "SECONDS", default_value_t = 60)]
    read_timeout: u64,
}

#[derive(clap::Args, Debug)]
struct DataArg {
    /// The data directory: the database, uploads and results [default:
    /// $XDG_DATA_HOME/bryo/serve, or ~/.local/share/bryo/serve].
    #[arg(long = "data", value_name = "DIR", global = true)]
    data: Option<PathBuf>,
}

impl DataArg {
    fn dir(&self) -> Result<PathBuf> {
        if let Some(d) = &self.data {
            return Ok(d.clone());
        }
        if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
            return Ok(PathBuf::from(d).join("bryo/serve"));
        }
        match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => Ok(PathBuf::from(home).join(".local/share/bryo/serve")),
            None => bail!("no data directory: set HOME or XDG_DATA_HOME, or pass --data DIR"),
        }
    }
}

#[derive(clap::Subcommand, Debug)]
enum UserCommand {
    /// Manage the users allowed to submit.
    #[command(subcommand)]
    User(UserAction),
}

#[derive(clap::Subcommand, Debug)]
enum UserAction {
    /// Add a user; prints the new user id (for the `moss` line) on its
    /// first line and the web and API token on the second.
    Add {
        /// Contact address of the user.
        email: String,
    },
    /// List the users: id, state, e-mail.
    List,
    /// Disable a user: its id and token are refused from now on (its
    /// results stay readable by whoever has their links).
    Disable {
        /// The user id.
        id: u64,
    },
}

pub fn run(args: &Args) -> Result<()> {
    let data = args.data.dir()?;
    match &args.command {
        Some(UserCommand::User(action)) => user(&data, action),
        None => serve(args, data),
    }
}

fn user(data: &std::path::Path, action: &UserAction) -> Result<()> {
    let store = Store::open(data)
        .with_context(|| format!("cannot open the data directory {}", data.display()))?;
    match action {
        UserAction::Add { email } => {
            let user = store.add_user(email)?;
            println!("{}", user.id);
            println!("token {}", user.token);
        }
        UserAction::List => {
            for u in store.users()? {
                let state = if u.disabled { "disabled" } else { "active" };
                println!("{}\t{state}\t{}", u.id, u.email);
            }
        }
        UserAction::Disable { id } => {
            if !store.disable_user(*id)? {
                bail!("there is no user {id}");
            }
            println!("user {id} disabled");
        }
    }
    Ok(())
}

fn serve(args: &Args, data: PathBuf) -> Result<()> {
    let mut config = Config::new(data);
    config.http = args.http;
    config.moss = args.moss;
    config.public_url = args.public_url.clone();
    if let Some(w) = args.workers {
        config.workers = w;
    }
    config.queue = args.queue;
    config.read_timeout = Duration::from_secs(args.read_timeout.max(1));
    config.limits = Limits {
        max_line_bytes: args.max_line_bytes,
        max_file_bytes: args.max_file_bytes,
        max_job_bytes: args.max_job_bytes,
        max_files: args.max_files,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let data = config.data.clone();
        let server = Server::bind(config).await?;
        // Scripts (and the tests) read the addresses from these lines.
        println!("bryo serve: data in {}", data.display());
        println!("bryo serve: MOSS protocol on {}", server.moss_addr()?);
        println!("bryo serve: HTTP on {}", server.http_addr()?);
        println!("bryo serve: results at {}/results/", server.public_url());
        server.run().await?;
        Ok(())
    })
}
