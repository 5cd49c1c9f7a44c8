pub mod hooks;
