process.stdout.write('not yet\n');
