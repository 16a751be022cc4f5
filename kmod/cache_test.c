// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: when a verdict cache snapshot still describes its file, and on
 * which filesystems verdicts are cached at all. Part of fsgate_kunit.ko
 * (kunit.c). The inode and superblock are fakes: only the fields the
 * snapshot reads are set.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/iversion.h>

#include "cache.h"

static struct inode *fake_inode(struct kunit *test, unsigned long s_flags,
				int fs_flags)
{
	struct file_system_type *type = kunit_kzalloc(test, sizeof(*type),
						      GFP_KERNEL);
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, type);
	KUNIT_ASSERT_NOT_NULL(test, sb);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	type->fs_flags = fs_flags;
	sb->s_type = type;
	sb->s_flags = s_flags;
	inode->i_sb = sb;
	inode_set_ctime(inode, 1000, 0);
	i_size_write(inode, 6);
	return inode;
}

/* A change fsgate hears of, a writer, a new size or ctime: not current. */
static void snap_is_current_until_the_file_changes(struct kunit *test)
{
	struct inode *inode = fake_inode(test, 0, 0);
	struct fsgate_snap snap;

	fsgate_snap_take(&snap, inode);
	KUNIT_EXPECT_TRUE(test, fsgate_snap_current(&snap, inode));
	fsgate_cache_changed(inode);
	KUNIT_EXPECT_FALSE(test, fsgate_snap_current(&snap, inode));

	fsgate_snap_take(&snap, inode);
	atomic_set(&inode->i_writecount, 1);
	KUNIT_EXPECT_FALSE(test, fsgate_snap_current(&snap, inode));
	atomic_set(&inode->i_writecount, 0);
	KUNIT_EXPECT_TRUE(test, fsgate_snap_current(&snap, inode));

	i_size_write(inode, 7);
	KUNIT_EXPECT_FALSE(test, fsgate_snap_current(&snap, inode));
	fsgate_snap_take(&snap, inode);
	inode_set_ctime(inode, 1000, 1);
	KUNIT_EXPECT_FALSE(test, fsgate_snap_current(&snap, inode));
}

/* Where the filesystem keeps i_version, a change of it alone is seen. */
static void snap_sees_i_version(struct kunit *test)
{
	struct inode *inode = fake_inode(test, SB_I_VERSION, 0);
	struct fsgate_snap snap;

	fsgate_snap_take(&snap, inode);
	KUNIT_EXPECT_TRUE(test, fsgate_snap_current(&snap, inode));
	inode_inc_iversion(inode);
	KUNIT_EXPECT_FALSE(test, fsgate_snap_current(&snap, inode));
}

/* FUSE, network, cluster and stacked filesystems get no cached verdicts. */
static void cache_allowed_on_local_filesystems_only(struct kunit *test)
{
	struct inode *stacked = fake_inode(test, 0, 0);

	KUNIT_EXPECT_TRUE(test,
			  fsgate_cache_allowed(fake_inode(test, 0, FS_REQUIRES_DEV)));
	stacked->i_sb->s_stack_depth = 1;
	KUNIT_EXPECT_FALSE(test, fsgate_cache_allowed(stacked));
	KUNIT_EXPECT_FALSE(test,
			   fsgate_cache_allowed(fake_inode(test, 0, FS_HAS_SUBTYPE)));
	KUNIT_EXPECT_FALSE(test,
			   fsgate_cache_allowed(fake_inode(test, 0,
							   FS_RENAME_DOES_D_MOVE)));
}

static struct kunit_case fsgate_cache_cases[] = {
	KUNIT_CASE(snap_is_current_until_the_file_changes),
	KUNIT_CASE(snap_sees_i_version),
	KUNIT_CASE(cache_allowed_on_local_filesystems_only),
	{}
};

static struct kunit_suite fsgate_cache_suite = {
	.name = "fsgate_cache",
	.test_cases = fsgate_cache_cases,
};

kunit_test_suite(fsgate_cache_suite);
