import pino from 'pino';

export const createLogger = (level) => pino({ level, base: { service: 'tenantlab-allocator' }, timestamp: pino.stdTimeFunctions.isoTime });
