import { KvContentStore, Scheduler } from "file:///work/wt/kvops/mod.ts";

const kv = await Deno.openKv();
const scheduler = new Scheduler({ store: new KvContentStore(kv) });
Deno.cron("cms schedules", "* * * * *", () => scheduler.tick());
