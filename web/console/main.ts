import '@/apps/console/main';
