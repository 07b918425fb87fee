// A config whose default export is a promise nothing ever settles: no timer, no I/O behind it.
export default new Promise(() => {});
