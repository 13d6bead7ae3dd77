import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Session } from 'node:inspector/promises';
import { ApplicationError } from '../../../rpc/errors';
import { ProfileFolder } from './profile-files';

/** debug_startCPUProfile / debug_stopCPUProfile: V8's sampling profiler, written as a .cpuprofile JSON under $HOME/profiles. */
@Injectable()
export class CpuProfiler implements OnModuleDestroy {
  private running: { readonly session: Session; readonly file: string } | undefined;

  constructor(private readonly folder: ProfileFolder) {}

  /** Starts the profiler; the file name is checked now (a bad or taken name is refused before profiling). */
  async start(file: string): Promise<null> {
    if (this.running) throw new ApplicationError('CPU profiling already in progress');
    await this.folder.check(file);
    if (this.running) throw new ApplicationError('CPU profiling already in progress');
    const session = new Session();
    session.connect();
    this.running = { session, file };
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return null;
  }

  async stop(): Promise<null> {
    const running = this.running;
    if (!running) throw new ApplicationError('CPU profiling not in progress');
    this.running = undefined;
    try {
      const { profile } = await running.session.post('Profiler.stop');
      await this.folder.writeText(running.file, JSON.stringify(profile));
    } finally {
      running.session.disconnect();
    }
    return null;
  }

  onModuleDestroy(): void {
    this.running?.session.disconnect();
    this.running = undefined;
  }
}
