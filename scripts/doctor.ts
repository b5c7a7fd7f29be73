// doctor: tries each configured model for real through the model gateway and says, in plain words, what works and
// which assistant features will not (docs/MODELS.md, "doctor"). Run: npx tsx scripts/doctor.ts [--quick] [--json]
import { doctorCli } from './doctor/cli';

void doctorCli(process.argv.slice(2), process.env, {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
}).then(
  (status) => (process.exitCode = status),
  (error: Error) => {
    console.error(`doctor: ${error.message}`);
    process.exitCode = 1;
  },
);
